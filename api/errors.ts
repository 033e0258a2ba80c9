import { ServiceError, type ErrorDetail } from '../activities/errors';

export { ERROR_CATALOGUE, ServiceError, type ErrorCode, type ErrorDetail } from '../activities/errors';

/** One factory per error code, so handlers and rules never spell a status by hand. */
export const errors = {
  invalidRequest: (message: string, details?: ErrorDetail[]) => new ServiceError('invalid_request', message, details),
  unauthorized: (message = 'Missing or invalid API key. Send the header Authorization: Bearer <key>.') =>
    new ServiceError('unauthorized', message),
  planRequired: (plan: string) =>
    new ServiceError('plan_required', `API access needs the Business plan or higher; this account is on ${plan}.`),
  insufficientScope: (scope: string) => new ServiceError('insufficient_scope', `This key lacks the scope ${scope}.`),
  featureDisabled: (flag: string) => new ServiceError('feature_disabled', `The feature ${flag} is disabled for this deployment.`),
  notFound: (what = 'resource') => new ServiceError('not_found', `No such ${what}.`),
  methodNotAllowed: (allowed: string[]) =>
    new ServiceError('method_not_allowed', `This path takes ${allowed.join(', ')}.`, undefined, { Allow: allowed.join(', ') }),
  invalidState: (message: string) => new ServiceError('invalid_state', message),
  conflict: (message: string) => new ServiceError('conflict', message),
  payloadTooLarge: (limit: number, what = 'request body') =>
    new ServiceError('payload_too_large', `The ${what} is larger than ${limit} bytes.`),
  unsupportedMediaType: (expected: string) => new ServiceError('unsupported_media_type', `Send the body as ${expected}.`),
  notImplemented: (what: string) => new ServiceError('not_implemented', `${what} is not implemented yet.`),
  internal: () => new ServiceError('internal_error', 'Something went wrong on our side. It has been logged.'),
  serviceUnavailable: (what: string) => new ServiceError('service_unavailable', `${what} is unreachable; retry later.`),
};

export function errorBody(error: ServiceError, docsUrl: string) {
  return {
    error: {
      code: error.code,
      message: error.message,
      docs_url: `${docsUrl}#${error.code}`,
      ...(error.details ? { details: error.details } : {}),
    },
  };
}

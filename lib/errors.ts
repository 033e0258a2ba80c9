/**
 * Every error code the API answers with, its HTTP status and what it means (SPEC: Errors, with the
 * statuses DESIGN.md fixes). The catalogue feeds the error factories below, the OpenAPI document and the
 * error documentation page at SVC_DOCS_URL.
 */
export const ERROR_CATALOGUE = {
  invalid_request: {
    status: 400,
    description: 'The request is malformed: bad JSON, a wrong type, a missing or unknown field. `details` names each field.',
  },
  unauthorized: { status: 401, description: 'No API key, or one that is unknown or revoked. Send `Authorization: Bearer <key>`.' },
  plan_required: { status: 403, description: 'API access needs the Business plan or higher.' },
  insufficient_scope: { status: 403, description: 'The key lacks the scope this operation needs.' },
  feature_disabled: { status: 403, description: 'The feature flag for this operation is off for this deployment.' },
  mandate_required: { status: 403, description: 'No active signing mandate exists for this key.' },
  mandate_inactive: { status: 403, description: 'The mandate for this key is revoked or expired.' },
  confirmation_required: {
    status: 403,
    description: 'An L1 key called POST /documents/:id/sign; request a confirmation with POST /documents/:id/sign-requests.',
  },
  principal_not_signer: { status: 403, description: 'The principal is not a signer on the document.' },
  mandate_scope: { status: 403, description: 'The mandate mode (outbound or inbound only) does not cover this document.' },
  cross_origin: {
    status: 403,
    description:
      'A browser sent this from another site’s page (its Origin or Sec-Fetch-Site says so). The sign page and the claim binding take posts only from this service’s own pages.',
  },
  not_owner: { status: 403, description: 'Only the principal who sent the document may do this (void it in the app).' },
  not_found: { status: 404, description: 'No such resource for this account.' },
  method_not_allowed: { status: 405, description: 'The path exists but does not take this HTTP method.' },
  already_signed: { status: 409, description: 'The principal already signed this document.' },
  strict_order: { status: 409, description: 'Strict signing order is on and an earlier signer has not signed.' },
  invalid_state: { status: 409, description: 'The resource is not in a state that allows this operation.' },
  pending_exists: {
    status: 409,
    description: 'An open L1 sign request already exists for this document and key; see GET /documents/:id/sign-requests.',
  },
  document_changed: { status: 409, description: 'The document PDF changed since the offer was made (its SHA-256 no longer matches).' },
  idempotency_mismatch: { status: 409, description: 'The Idempotency-Key was used before with a different request.' },
  idempotency_in_progress: {
    status: 409,
    description: 'A request with this Idempotency-Key is still running; retry it in a moment to get its answer.',
  },
  conflict: { status: 409, description: 'The resource already exists.' },
  expired: { status: 410, description: 'The link, request or offer has expired.' },
  payload_too_large: { status: 413, description: 'The request body is larger than the limit.' },
  unsupported_media_type: { status: 415, description: 'The request body has a content type this endpoint does not take.' },
  invalid_pdf: {
    status: 422,
    description:
      'The PDF cannot be taken: encrypted, already signed, unreadable, with hidden optional content, or past a limit of the safe intake (time, memory, inflated size, objects, pages), which the message names.',
  },
  missing_appearance: { status: 422, description: 'The principal has no readable stored signature (PNG or JPEG).' },
  missing_signature_fields: { status: 422, description: 'The document has no signature widget for the principal.' },
  unfilled_fields: {
    status: 422,
    description:
      'Required widgets that the stored appearance cannot fill (text, checkbox, dropdown, radio group) block the apply, unless the sender filled them by name (`values`).',
  },
  rate_limited: {
    status: 429,
    description:
      'A rate limit is reached: requests per API key or per client address (`details` names `requests_per_key` or `requests_per_address`), the L2 cap of 25 applies per mandate per UTC day, or wrong e-mailed codes per subject and client, or code requests per address; see Retry-After.',
  },
  internal_error: { status: 500, description: 'An unexpected failure on our side; it is logged and treated as a bug.' },
  not_implemented: { status: 501, description: 'The operation is reserved and not implemented yet.' },
  sign_failed: { status: 502, description: 'The digital signature step did not succeed; nothing was applied.' },
  service_unavailable: { status: 503, description: 'A dependency (database or Temporal) is unreachable; retry later.' },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface ErrorDetail {
  path: string;
  message: string;
}

/** The Retry-After header of a refusal that ends in `ms` milliseconds: whole seconds, at least 1. */
export function retryAfter(ms: number): Record<string, string> {
  return { 'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))) };
}

/** How many fields a refusal names at most (a hostile body may hold a million keys); the rest are counted. */
export const MAX_NAMED_DETAILS = 20;

/**
 * Collects a refusal's details: the first MAX_NAMED_DETAILS as given, then only a count, which
 * `list(path)` closes with one `{path, message: 'and N more'}` detail. The work stays bounded
 * however many problems a body has.
 */
export function boundedDetails(): { add(detail: ErrorDetail): void; list(path: string): ErrorDetail[] } {
  const details: ErrorDetail[] = [];
  let more = 0;
  return {
    add(detail) {
      if (details.length < MAX_NAMED_DETAILS) details.push(detail);
      else more += 1;
    },
    list(path) {
      return more > 0 ? [...details, { path, message: `and ${more} more` }] : details;
    },
  };
}

export class ServiceError extends Error {
  override name = 'ServiceError';
  readonly status: number;
  /** What only the server log may say about the refusal (never sent to the client), e.g. the private address a webhook host resolved to. */
  logDetail?: Record<string, unknown>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ERROR_CATALOGUE[code].status;
  }
}

type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** A factory of one error code: the message (the catalogue's description when omitted), field details, headers. */
export type ErrorFactory = (message?: string, details?: ErrorDetail[], headers?: Record<string, string>) => ServiceError;

function camelCase(code: string): string {
  return code.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * One factory per code of the catalogue (`errors.alreadySigned(…)`, `errors.notFound(…)`), so rules
 * and surfaces never pair a code with a status by hand and every code they use exists.
 */
export const errors = Object.fromEntries(
  (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).map((code) => [
    camelCase(code),
    ((message = ERROR_CATALOGUE[code].description, details, headers) =>
      new ServiceError(code, message, details, headers)) satisfies ErrorFactory,
  ]),
) as { [Code in ErrorCode as CamelCase<Code>]: ErrorFactory };

/** The error body SPEC fixes: `{error: {code, message, docs_url}}`, plus `details` for invalid requests. */
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

import type { Context, Next } from 'koa';
import { isDatabaseUnavailable } from '../../db/errors';
import { errorBody, errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import type { Logger } from '../../lib/log';
import { loggablePath } from './redact';

/** Koa and its router throw http-errors for requests they cannot even route (e.g. a bad URI). */
function fromHttpError(error: { status?: number; expose?: boolean; message?: string }): ServiceError | undefined {
  if (error.status !== 400) return undefined;
  return errors.invalidRequest(error.expose && error.message ? error.message : t('errors.http.malformed'));
}

/**
 * The one place error bodies are written: ServiceErrors become SPEC's `{error: {...}}` body, a
 * database that cannot be reached 503 service_unavailable, and anything else is logged with the
 * request id and answered as a 500 with no internals.
 */
export function errorMiddleware(options: { docsUrl: string; log: Logger }) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (caught) {
      let error = caught instanceof ServiceError ? caught : fromHttpError(caught as { status?: number });
      if (!error && isDatabaseUnavailable(caught)) {
        // An outage, not a bug: the client retries (with its Idempotency-Key) once the database is back.
        options.log.warn('database unavailable', {
          request_id: ctx.state.requestId,
          method: ctx.method,
          path: loggablePath(ctx.path),
          detail: (caught as Error).message,
        });
        error = errors.serviceUnavailable(t('errors.http.database_unreachable'), undefined, { 'Retry-After': '1' });
      }
      if (!error) {
        options.log.error('unhandled error', {
          request_id: ctx.state.requestId,
          method: ctx.method,
          path: loggablePath(ctx.path),
          error: caught,
        });
        error = errors.internalError(t('errors.http.internal_error'));
      }
      if (error.logDetail)
        options.log.info('request refused', {
          request_id: ctx.state.requestId,
          method: ctx.method,
          path: loggablePath(ctx.path),
          code: error.code,
          ...error.logDetail,
        });
      ctx.status = error.status;
      ctx.set(error.headers);
      ctx.body = errorBody(error, options.docsUrl);
    }
  };
}

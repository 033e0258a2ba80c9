import type { ErrorCode } from '../../lib/errors';
import { exemptFromRateLimits } from './rate-limit';
import type { RegisteredRoute } from './route-spec';

/**
 * Every error code a route may answer: the ones its spec lists (what its rule can refuse) and the ones
 * the registry adds by what the route is (any: an outage's 503; keyed, scoped, flagged, with a body, a keyed POST that takes
 * an Idempotency-Key, rate-limited). The OpenAPI document lists exactly these, and in tests the
 * registry fails a route that answers any other (api/http/route.ts), so a list that misses what its
 * rule throws is caught by the suite instead of misleading a client.
 */
export function declaredErrors(route: Pick<RegisteredRoute, 'spec' | 'implemented'>): Set<ErrorCode> {
  const { spec } = route;
  const keyed = (spec.auth ?? 'key') === 'key';
  // Any route can meet an outage (the database, Temporal, the object store): 503 is everyone's.
  const codes = new Set<ErrorCode>(['invalid_request', 'service_unavailable', ...(spec.errors ?? [])]);
  if (keyed) for (const code of ['unauthorized', 'plan_required'] as const) codes.add(code);
  if (spec.needs?.scope) codes.add('insufficient_scope');
  if (spec.needs?.flag) codes.add('feature_disabled');
  if (spec.body || spec.stream) for (const code of ['payload_too_large', 'unsupported_media_type'] as const) codes.add(code);
  if (keyed && spec.method === 'post') for (const code of ['idempotency_mismatch', 'idempotency_in_progress'] as const) codes.add(code);
  if (!route.implemented) codes.add('not_implemented');
  if (!exemptFromRateLimits(`/v1${spec.path}`)) codes.add('rate_limited');
  return codes;
}

/** PostgreSQL unique_violation (23505), from pg or PGlite, raw or wrapped by Objection (db-errors). */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, nativeError, name } = error as { code?: unknown; nativeError?: { code?: unknown }; name?: unknown };
  return code === '23505' || nativeError?.code === '23505' || name === 'UniqueViolationError';
}

// Network failures reaching the server, and SQLSTATEs of a server that is going away or not there yet:
// connection exceptions (class 08), admin/crash shutdown and "starting up / shutting down" (57P01-57P03),
// too many connections (53300).
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
// What pg and knex throw without a code when a connection dies under a query or cannot be had (knex
// puts the query in front: "<sql> - Connection terminated unexpectedly").
const UNREACHABLE_MESSAGES =
  /(?:^|\s-\s)(Connection terminated|Connection ended unexpectedly|Client has encountered a connection error|timeout exceeded when trying to connect|Knex: Timeout acquiring a connection)/;

/**
 * Whether an error means the database cannot be reached now (refused, reset, shutting down or starting
 * up, a connection lost mid-query), as opposed to an error about the query: callers answer 503
 * service_unavailable and retry, rather than a 500. Looks through Objection's wrapper and causes.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current = error as { code?: unknown; message?: unknown; name?: unknown; nativeError?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth += 1) {
    if (typeof current.code === 'string' && (UNREACHABLE_CODES.has(current.code) || current.code.startsWith('08'))) return true;
    if (current.name === 'KnexTimeoutError') return true;
    if (typeof current.message === 'string' && UNREACHABLE_MESSAGES.test(current.message)) return true;
    current = (current.nativeError ?? current.cause) as typeof current;
  }
  return false;
}

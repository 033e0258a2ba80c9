/** PostgreSQL unique_violation (23505), from pg or PGlite, raw or wrapped by Objection (db-errors). */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, nativeError, name } = error as { code?: unknown; nativeError?: { code?: unknown }; name?: unknown };
  return code === '23505' || nativeError?.code === '23505' || name === 'UniqueViolationError';
}

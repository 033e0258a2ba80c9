/**
 * Where db/ writes its lines (knex's warnings, lost notices): the part of lib/log's Logger it uses,
 * declared here so db/, the lowest layer, imports nothing above it. lib's Logger is one.
 */
export interface DbLog {
  debug(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

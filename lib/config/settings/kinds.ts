import { z } from 'zod';

/** One environment variable: its schema, the default column when the schema does not say it, and what it does. */
export interface Setting {
  schema?: z.ZodType;
  /** The default column when the schema's own default does not say it (unset, derived, per process). */
  shown?: string;
  doc: string;
}

export const port = z.coerce.number().int().min(0).max(65535);
/** A whole number of at least `min` (and at most `max`), `fallback` when unset. */
export const int = (min: number, fallback: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number().int().min(min).max(max).default(fallback);
export const url = z.url().transform((value) => value.replace(/\/+$/, ''));
export const bool = z
  .enum(['true', 'false', '1', '0'])
  .default('false')
  .transform((value) => value === 'true' || value === '1');

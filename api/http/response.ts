import type { z } from 'zod';
import { describeDetails, issueDetails } from './issues';

type AllKeys<S> = S extends unknown ? keyof S : never;
type At<S, K> = S extends unknown ? (K extends keyof S ? S[K] : never) : never;
type ElementOf<S> = S extends readonly (infer E)[] ? E : never;

/**
 * `T` with every field the shape `S` lacks typed `never`, at any depth: a handler's result must be
 * `T & Exactly<S, T>`, so an extra field fails tsc where an inferred return type would let it through
 * (TypeScript checks excess fields only on a literal typed in place). Fields under `unknown` are free.
 */
export type Exactly<S, T> = unknown extends S
  ? T
  : T extends readonly unknown[]
    ? { [I in keyof T]: Exactly<ElementOf<NonNullable<S>>, T[I]> }
    : T extends object
      ? { [K in keyof T]: K extends AllKeys<NonNullable<S>> ? Exactly<At<NonNullable<S>, K>, T[K]> : never }
      : T;

/** What a handler of a route with this response schema may answer. */
export type ResponseOf<R> = R extends z.ZodType ? z.input<R> : unknown;
export type CheckedResult<R, T> = R extends z.ZodType ? T & Exactly<z.input<R>, T> : T;

/** Paths of fields in `sent` that the parsed `kept` lost: the fields the schema does not know (zod strips them). */
function strayFields(sent: unknown, kept: unknown, path: string, found: string[]): void {
  if (Array.isArray(sent) && Array.isArray(kept)) {
    sent.forEach((item, index) => {
      strayFields(item, kept[index], `${path}[${index}]`, found);
    });
  } else if (sent && kept && typeof sent === 'object' && typeof kept === 'object' && !(sent instanceof Date)) {
    for (const [key, value] of Object.entries(sent)) {
      const at = path ? `${path}.${key}` : key;
      if (!Object.hasOwn(kept, key)) {
        if (value !== undefined) found.push(at);
      } else strayFields(value, (kept as Record<string, unknown>)[key], at, found);
    }
  }
}

/**
 * Why a response does not match its route's schema (a field missing, of the wrong type, or one the
 * schema lacks), or undefined when it matches. Run on every response in tests (SVC_ENV=test).
 */
export function responseMismatch(schema: z.ZodType, body: unknown): string | undefined {
  // JSON is what the client gets: a Date becomes a string, undefined fields vanish.
  const sent: unknown = JSON.parse(JSON.stringify(body) ?? 'null');
  const parsed = schema.safeParse(sent);
  if (!parsed.success) return describeDetails(issueDetails(parsed.error.issues, 'response'));
  const stray: string[] = [];
  strayFields(sent, parsed.data, '', stray);
  return stray.length ? `fields not in the schema: ${stray.join(', ')}` : undefined;
}

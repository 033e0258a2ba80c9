import type { Context } from 'koa';
import type { z } from 'zod';
import type { Caller } from '../../activities/accounts/accounts';
import type { Requirements } from '../../activities/accounts/authorize';
import type { ErrorCode } from '../../lib/errors';
import type { StreamSpec } from './body';

// What a route is (its spec, its context, its registration), apart from the registry that runs it
// (route.ts): authentication, the declared errors and the OpenAPI document name these without it.

export type Method = 'get' | 'post' | 'patch' | 'delete';
export type AnyObject = z.ZodObject<z.ZodRawShape>;

/** One endpoint: what validates it, what documents it in OpenAPI, and who may call it. */
export interface RouteSpec<
  B extends z.ZodType | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
  P extends AnyObject | undefined = undefined,
  R extends z.ZodType | undefined = z.ZodType | undefined,
  S extends StreamSpec | undefined = StreamSpec | undefined,
> {
  method: Method;
  /** Path below /v1 in router syntax, e.g. `/documents/:id`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** `key` (default) needs a Business+ API key; `none` is open (health, OpenAPI, public claim links). */
  auth?: 'key' | 'none';
  /**
   * Plan, scope and flag, checked by the gate (activities/accounts/authorize.ts) before validation.
   * Where the route's rule requires them itself, they are the rule's own exported requirements
   * (`ACCEPT_OFFER_NEEDS` …), declared once and read here, by the gate, and by the OpenAPI document.
   */
  needs?: Requirements;
  /** A JSON body, read and validated by the registry. */
  body?: B;
  /** Instead of `body`: the body is not read but handed to the handler as a stream (uploads). */
  stream?: S;
  query?: Q;
  params?: P;
  /** What the handler answers: its type is checked by tsc, and every response by the schema in tests. */
  response?: R;
  /** Success status (200 unless given). */
  status?: number;
  /**
   * For an endpoint that may also answer 202 while its work goes on (same response schema, a
   * `processing` status): what that answer means and how the caller learns the outcome (OpenAPI).
   */
  accepted?: string;
  /** Error codes this endpoint can answer with, beyond the ones every endpoint has. */
  errors?: ErrorCode[];
  /**
   * For an endpoint that may answer 202 (still processing): the handler leaves what it waits for in
   * `ctx.state.resume`, and a retry with the same Idempotency-Key gets this instead of a second run:
   * the answer the work has now (200 once done, 202 while it is not, or its refusal).
   */
  resume?: (ctx: ApiContext, resume: unknown) => Promise<unknown>;
}

export type ApiContext = Context & { state: ApiState };

export interface ApiState {
  requestId: string;
  /** What a 202 answer waits for, kept with its Idempotency-Key (RouteSpec.resume). */
  resume?: unknown;
  caller?: Caller;
  rawBody?: Buffer;
}

export interface RegisteredRoute {
  spec: RouteSpec<z.ZodType | undefined, AnyObject | undefined, AnyObject | undefined>;
  implemented: boolean;
}

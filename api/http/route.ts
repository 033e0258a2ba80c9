import type Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { Caller } from '../../activities/accounts/accounts';
import { isBusinessPlus } from '../../activities/accounts/accounts';
import type { FlagName } from '../../lib/config/flags';
import { type ErrorCode, errors } from '../../lib/errors';
import type { Services } from '../../lib/services';
import { authenticate } from './auth';
import { readJsonBody } from './body';
import { describeDetails, issueDetails } from './issues';

export type Method = 'get' | 'post' | 'delete';
type AnyObject = z.ZodObject<z.ZodRawShape>;

/** One endpoint: what validates it, what documents it in OpenAPI, and who may call it. */
export interface RouteSpec<
  B extends z.ZodType | undefined = undefined,
  Q extends AnyObject | undefined = undefined,
  P extends AnyObject | undefined = undefined,
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
  flag?: FlagName;
  scope?: string;
  body?: B;
  query?: Q;
  params?: P;
  response?: z.ZodType;
  /** Success status (200 unless given). */
  status?: number;
  /** Error codes this endpoint can answer with, beyond the ones every endpoint has. */
  errors?: ErrorCode[];
}

type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;

export interface RouteInput<B, Q, P> {
  body: B;
  query: Q;
  params: P;
}

export type ApiContext = Context & { state: ApiState };

export interface ApiState {
  requestId: string;
  caller?: Caller;
  rawBody?: Buffer;
}

/** What a handler answers: the body (sent with the route's status), or a status and body. */
export type HandlerResult = unknown;

export type Handler<B, Q, P> = (ctx: ApiContext, input: RouteInput<B, Q, P>) => Promise<HandlerResult>;

export interface RegisteredRoute {
  spec: RouteSpec<z.ZodType | undefined, AnyObject | undefined, AnyObject | undefined>;
  implemented: boolean;
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, root?: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = issueDetails(result.error.issues, root);
  throw errors.invalidRequest(`Invalid request: ${describeDetails(details)}`, details);
}

/** The caller of a route that requires a key (set by the route's auth step). */
export function callerOf(ctx: ApiContext): Caller {
  if (!ctx.state.caller) throw new Error('callerOf used on a route without key authentication');
  return ctx.state.caller;
}

/** Path parameters a spec names in its path, as plain strings unless the spec gives a schema. */
function pathParamsSchema(path: string): AnyObject {
  const names = [...path.matchAll(/:(\w+)/g)].map((match) => match[1]);
  return z.object(Object.fromEntries(names.map((name) => [name, z.string()])));
}

/**
 * Registers endpoints on a router and remembers their specs for the OpenAPI document. A route with
 * no handler is part of the contract already and answers 501 not_implemented after auth and validation.
 */
export class Routes {
  readonly registered: RegisteredRoute[] = [];

  constructor(
    private readonly router: Router,
    private readonly deps: Services,
  ) {}

  add<
    B extends z.ZodType | undefined = undefined,
    Q extends AnyObject | undefined = undefined,
    P extends AnyObject | undefined = undefined,
  >(spec: RouteSpec<B, Q, P>, handler?: Handler<Infer<B>, Infer<Q>, Infer<P>>): void {
    const params = spec.params ?? pathParamsSchema(spec.path);
    this.registered.push({ spec: { ...spec, params } as RegisteredRoute['spec'], implemented: Boolean(handler) });
    const { deps } = this;
    const limit = deps.config.jsonLimitBytes;

    const run = async (ctx: Context) => {
      const api = ctx as ApiContext;
      if ((spec.auth ?? 'key') === 'key') {
        const caller = await authenticate(api, deps.db);
        if (!isBusinessPlus(caller.tenant.plan))
          throw errors.planRequired(`API access needs the Business plan or higher; this account is on ${caller.tenant.plan}.`);
        if (spec.scope && !caller.apiKey.scopes.includes(spec.scope))
          throw errors.insufficientScope(`This key lacks the scope ${spec.scope}.`);
      }
      if (spec.flag && !deps.config.flags.values[spec.flag])
        throw errors.featureDisabled(`The feature ${spec.flag} is disabled for this deployment.`);
      const input = {
        params: parseOrThrow(params, ctx.params ?? {}, 'path'),
        query: spec.query ? parseOrThrow(spec.query, ctx.query, 'query') : undefined,
        body: spec.body ? parseOrThrow(spec.body, await readJsonBody(ctx, limit)) : undefined,
      } as RouteInput<Infer<B>, Infer<Q>, Infer<P>>;
      if (!handler) throw errors.notImplemented(`${spec.method.toUpperCase()} /v1${spec.path} is not implemented yet.`);
      const result = await handler(api, input);
      if (ctx.body === undefined || ctx.body === null) {
        ctx.status = spec.status ?? 200;
        if (result !== undefined) ctx.body = result;
      }
    };
    this.router[spec.method](spec.operationId, spec.path, run);
  }
}

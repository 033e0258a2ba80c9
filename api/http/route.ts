import type Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { Caller } from '../../activities/accounts/accounts';
import { authorize } from '../../activities/accounts/authorize';
import type { Services } from '../../activities/services';
import { errorBody, errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { authenticate } from './auth';
import { drainAfterAnswer, readJsonBody, type StreamBody, type StreamSpec, streamBody } from './body';
import {
  claimIdempotency,
  fingerprint,
  finishIdempotency,
  idempotencyKey,
  isFinalAnswer,
  releaseIdempotency,
  settleIdempotency,
} from './idempotency';
import { describeDetails, issueDetails } from './issues';
import { type CheckedResult, type ResponseOf, responseMismatch } from './response';
import { declaredErrors } from './route-errors';
import type { AnyObject, ApiContext, RegisteredRoute, RouteSpec } from './route-spec';
import type { RouteTable } from './segment-router';

export type { AnyObject, ApiContext, ApiState, Method, RegisteredRoute, RouteSpec } from './route-spec';

type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;

export interface RouteInput<B, Q, P, S = undefined> {
  body: B;
  query: Q;
  params: P;
  /** The body of a streaming route (RouteSpec.stream). */
  stream: S;
}

/**
 * A handler answers the response body, sent with the route's status; one that answers another
 * success status (202 still processing, 503 unavailable) sets `ctx.status` first. With a response
 * schema `R`, the body must have exactly its fields (see Exactly).
 */
export type Handler<B, Q, P, S = undefined, R = undefined, T = unknown> = (
  ctx: ApiContext,
  input: RouteInput<B, Q, P, S>,
) => Promise<CheckedResult<R, T>>;

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, root?: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = issueDetails(result.error.issues, root);
  throw errors.invalidRequest(t('errors.http.invalid_request', { details: describeDetails(details) }), details);
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
    private readonly router: Router | RouteTable,
    private readonly deps: Services,
  ) {}

  add<
    B extends z.ZodType | undefined = undefined,
    Q extends AnyObject | undefined = undefined,
    P extends AnyObject | undefined = undefined,
    R extends z.ZodType | undefined = undefined,
    S extends StreamSpec | undefined = undefined,
    T extends ResponseOf<R> = ResponseOf<R>,
  >(
    spec: RouteSpec<B, Q, P, R, S>,
    handler?: Handler<Infer<B>, Infer<Q>, Infer<P>, S extends StreamSpec ? StreamBody : undefined, R, T>,
  ): void {
    if (spec.body && spec.stream) throw new Error(`${spec.operationId}: a route takes a JSON body or a stream, not both`);
    const params = spec.params ?? pathParamsSchema(spec.path);
    const route: RegisteredRoute = { spec: { ...spec, params } as RegisteredRoute['spec'], implemented: Boolean(handler) };
    this.registered.push(route);
    const { deps } = this;
    const limit = deps.config.jsonLimitBytes;
    const keyed = (spec.auth ?? 'key') === 'key';
    // Tests check every response against its schema, so a presenter that drifts from the contract fails the suite.
    const checkResponses = deps.config.env === 'test';

    const run = async (ctx: Context) => {
      const api = ctx as ApiContext;
      const caller = keyed ? await authenticate(api, deps) : null;
      authorize(caller, { plan: keyed ? 'api' : undefined, ...spec.needs }, deps.config.flags.values);
      const input = {
        params: parseOrThrow(params, ctx.params ?? {}, 'path'),
        query: spec.query ? parseOrThrow(spec.query, ctx.query, 'query') : undefined,
        body: spec.body ? parseOrThrow(spec.body, await readJsonBody(ctx, limit)) : undefined,
        stream: spec.stream ? streamBody(ctx, spec.stream) : undefined,
      } as RouteInput<Infer<B>, Infer<Q>, Infer<P>, S extends StreamSpec ? StreamBody : undefined>;
      if (!handler)
        throw errors.notImplemented(t('errors.http.v1_not_implemented_yet', { method: spec.method.toUpperCase(), path: spec.path }));
      const answer = async () => {
        ctx.status = spec.status ?? 200;
        const result = await handler(api, input);
        if (result === undefined) return;
        const mismatch = checkResponses && spec.response ? responseMismatch(spec.response, result) : undefined;
        if (mismatch) throw new Error(`The response of ${spec.operationId} does not match its schema: ${mismatch}`);
        ctx.body = result;
      };
      const header = caller && spec.method === 'post' ? ctx.get('idempotency-key') : '';
      if (!header) return answer();
      // DESIGN: a POST retried with the same Idempotency-Key (and body) gets the first answer; the work is done once.
      const key = idempotencyKey(header);
      const body = spec.stream ? `stream ${ctx.get('content-type')} ${ctx.get('content-length')}` : (api.state.rawBody ?? '');
      const print = fingerprint({ method: ctx.method, path: ctx.path, query: ctx.querystring, body });
      const claim = await claimIdempotency(deps.db, deps.secret, deps.config.idempotency, caller!.apiKey.id, key, print);
      // Written later when the database is down (the answer stands; see finishIdempotency). A 202
      // whose route can resume it is kept with what it waits for; other answers that are not final
      // free the key for a retry that runs again.
      const finish = (status: number, answered: unknown) => {
        const resume = status === 202 && spec.resume ? api.state.resume : undefined;
        return finishIdempotency(
          isFinalAnswer(status) || resume !== undefined
            ? () => settleIdempotency(deps.db, deps.secret, caller!.apiKey.id, key, status, answered, resume)
            : () => releaseIdempotency(deps.db, caller!.apiKey.id, key),
          deps.config.idempotency.staleMs,
        );
      };
      const resumed = claim.kind === 'replay' && claim.resume !== undefined && spec.resume ? spec.resume : undefined;
      if (claim.kind === 'replay' && !resumed) {
        ctx.status = claim.status;
        ctx.body = claim.body;
        ctx.set('Idempotent-Replayed', 'true');
        return;
      }
      try {
        if (resumed && claim.kind === 'replay') {
          ctx.set('Idempotent-Replayed', 'true');
          ctx.status = spec.status ?? 200;
          api.state.resume = undefined;
          ctx.body = await resumed(api, claim.resume);
        } else await answer();
      } catch (error) {
        if (error instanceof ServiceError) await finish(error.status, errorBody(error, deps.config.docsUrl));
        else await finish(500, undefined);
        throw error;
      }
      await finish(ctx.status, ctx.body);
    };
    // Tests hold every route to its declared error list (route-errors.ts): an undeclared code fails the suite.
    const declared = checkResponses ? declaredErrors(route) : undefined;
    const router: Router =
      typeof (this.router as RouteTable).routerFor === 'function'
        ? (this.router as RouteTable).routerFor(spec.path)
        : (this.router as Router);
    // Outside tests a route without a stream needs nothing around its run: one async frame less per request.
    if (!declared && !spec.stream) {
      router[spec.method](spec.operationId, spec.path, run);
      return;
    }
    router[spec.method](spec.operationId, spec.path, async (ctx) => {
      try {
        await run(ctx);
      } catch (error) {
        if (declared && error instanceof ServiceError && !declared.has(error.code))
          throw new Error(`${spec.operationId} answered ${error.code}, which its errors list does not declare (${error.message})`);
        throw error;
      } finally {
        if (spec.stream) drainAfterAnswer(ctx);
      }
    });
  }
}

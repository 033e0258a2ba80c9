import { documentStatusAfter } from '../../activities/documents/apply';
import { agentActor, findVisibleDocument } from '../../activities/documents/documents';
import { startSignRequestWorkflow } from '../../activities/documents/orchestration';
import { mailStates } from '../../activities/mail/status';
import { confirmMailKey, requestSign, signAsPrincipal } from '../../activities/mandates/signing';
import { SignRequest } from '../../db/models';
import { errors } from '../../lib/errors';
import type { Services } from '../../lib/services';
import { requestMeta } from '../http/request';
import { callerOf, type Routes } from '../http/route';
import { presentSignRequest } from '../mandates/presenter';
import { SignRequestListResponseSchema, SignRequestResponseSchema, SignResultSchema } from '../mandates/schema';
import { IdParamsSchema, ReasonSchema } from '../shared/schema';

const APPLY_ERRORS = [
  'mandate_required',
  'mandate_inactive',
  'principal_not_signer',
  'mandate_scope',
  'missing_appearance',
  'missing_signature_fields',
  'unfilled_fields',
  'already_signed',
  'strict_order',
  'invalid_state',
  'sign_failed',
] as const;

export function signingRoutes(routes: Routes, deps: Services): void {
  /** Sign requests as the agent sees them, each with the state of its confirm mail. */
  const present = async (requests: SignRequest[]) => {
    const mails = await mailStates(
      deps.db,
      requests.map((request) => confirmMailKey(request.id)),
    );
    return requests.map((request) =>
      presentSignRequest(request, { appUrl: deps.config.appUrl, secret: deps.secret, mail: mails.get(confirmMailKey(request.id)) }),
    );
  };

  routes.add(
    {
      method: 'post',
      path: '/documents/:id/sign',
      operationId: 'signAsPrincipal',
      summary: 'L2: apply the principal’s stored appearance now, within the key’s mandate',
      description:
        'An L1 key gets 403 `confirmation_required`. At most 25 L2 applies per mandate per UTC day (429 `rate_limited` with Retry-After). The principal is notified by e-mail.',
      tag: 'Signing',
      params: IdParamsSchema,
      body: ReasonSchema,
      response: SignResultSchema,
      errors: ['not_found', 'feature_disabled', 'confirmation_required', 'rate_limited', 'service_unavailable', ...APPLY_ERRORS],
    },
    async (ctx, { params, body }) => {
      const caller = callerOf(ctx);
      const { outcome, mandate } = await signAsPrincipal(deps, caller, params.id, body.reason, agentActor(caller, requestMeta(ctx)));
      const applied = outcome.status === 'applied';
      ctx.status = applied ? 200 : 202;
      ctx.body = {
        status: applied ? 'applied' : 'processing',
        document_id: params.id,
        mandate_id: mandate.id,
        confirmation_level: 'L2',
        pre_sign_hash: outcome.pre_sign_hash ?? null,
        document_hash: outcome.document_hash ?? null,
        document_status: documentStatusAfter(outcome),
      };
    },
  );
  routes.add(
    {
      method: 'post',
      path: '/documents/:id/sign-requests',
      operationId: 'requestSign',
      summary: 'L1: ask the principal to confirm an apply; returns confirm_url, also e-mailed',
      tag: 'Signing',
      flag: 'l1_signing',
      params: IdParamsSchema,
      body: ReasonSchema,
      response: SignRequestResponseSchema,
      status: 201,
      errors: [
        'not_found',
        'pending_exists',
        'mandate_required',
        'mandate_inactive',
        'principal_not_signer',
        'mandate_scope',
        'already_signed',
        'invalid_state',
        'service_unavailable',
      ],
    },
    async (ctx, { params, body }) => {
      const caller = callerOf(ctx);
      const request = await requestSign(deps, caller, params.id, body.reason, agentActor(caller, requestMeta(ctx)), (created) =>
        startSignRequestWorkflow(deps.temporal, deps.config, created.id),
      );
      return (await present([request]))[0];
    },
  );
  routes.add(
    {
      method: 'get',
      path: '/documents/:id/sign-requests',
      operationId: 'listSignRequests',
      summary: 'Sign requests of this key on the document, newest first',
      tag: 'Signing',
      flag: 'l1_signing',
      params: IdParamsSchema,
      response: SignRequestListResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params }) => {
      const caller = callerOf(ctx);
      await findVisibleDocument(deps.db, caller, params.id);
      const requests = await SignRequest.query(deps.db)
        .where({ document_id: params.id, api_key_id: caller.apiKey.id })
        .orderBy('created_at', 'desc');
      return { data: await present(requests) };
    },
  );
  routes.add(
    {
      method: 'get',
      path: '/sign-requests/:id',
      operationId: 'getSignRequest',
      summary: 'Status of one sign request of this key',
      tag: 'Signing',
      flag: 'l1_signing',
      params: IdParamsSchema,
      response: SignRequestResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params }) => {
      const request = await SignRequest.query(deps.db)
        .findById(params.id)
        .where({ api_key_id: callerOf(ctx).apiKey.id });
      if (!request) throw errors.notFound('No such sign request for this key.');
      return (await present([request]))[0];
    },
  );
}

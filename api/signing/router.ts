import { agentActor, findVisibleDocument } from '../../activities/documents/documents';
import { mailStates } from '../../activities/mail/status';
import type { Services } from '../../activities/services';
import {
  confirmMailKey,
  L1_REQUEST_NEEDS,
  type L2Result,
  requestSign,
  resumeL2Sign,
  signAsPrincipal,
} from '../../activities/signing/signing';
import { startAfterCommit, starts } from '../../activities/workflow-starts';
import { SignRequest } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { page } from '../../lib/paging';
import { requestMeta } from '../http/request';
import { type ApiContext, callerOf, type Routes } from '../http/route';
import { applyProcessing } from '../shared/apply-processing';
import { IdParamsSchema, ListQuerySchema, ReasonSchema } from '../shared/schema';
import { presentSignRequest, presentSignResult } from './presenter';
import { SignRequestListResponseSchema, SignRequestResponseSchema, SignResultSchema } from './schema';

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

type L2Resume = { applyId: string; mandateId: string };

/** An L2 sign's answer: 200 applied, or 202 processing with the apply kept for a retry to wait on. */
function answerL2(ctx: ApiContext, documentId: string, { outcome, mandate, applyId }: L2Result) {
  if (outcome.status !== 'applied') {
    ctx.status = 202;
    ctx.state.resume = { applyId, mandateId: mandate.id } satisfies L2Resume;
  } else ctx.status = 200;
  return presentSignResult(documentId, mandate, outcome);
}

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
      accepted: applyProcessing('`status: processing`'),
      tag: 'Signing',
      params: IdParamsSchema,
      body: ReasonSchema,
      response: SignResultSchema,
      errors: ['not_found', 'feature_disabled', 'confirmation_required', 'rate_limited', 'service_unavailable', ...APPLY_ERRORS],
      // A retry with the same Idempotency-Key after a 202 answers that apply's outcome, not 409 already_signed.
      resume: async (ctx, resume) => answerL2(ctx, ctx.params.id, await resumeL2Sign(deps, resume as L2Resume)),
    },
    async (ctx, { params, body }) => {
      const caller = callerOf(ctx);
      return answerL2(ctx, params.id, await signAsPrincipal(deps, caller, params.id, body.reason, agentActor(caller, requestMeta(ctx))));
    },
  );
  routes.add(
    {
      method: 'post',
      path: '/documents/:id/sign-requests',
      operationId: 'requestSign',
      summary: 'L1: ask the principal to confirm an apply; returns confirm_url, also e-mailed',
      tag: 'Signing',
      needs: L1_REQUEST_NEEDS,
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
      const request = await requestSign(deps, caller, params.id, body.reason, agentActor(caller, requestMeta(ctx)), (created, trx) =>
        startAfterCommit(deps, trx, starts.signRequest(created)),
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
      needs: L1_REQUEST_NEEDS,
      params: IdParamsSchema,
      query: ListQuerySchema,
      response: SignRequestListResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params, query }) => {
      const caller = callerOf(ctx);
      await findVisibleDocument(deps.db, caller, params.id);
      const { items, next_cursor } = await page(
        SignRequest.query(deps.db).where({ 'sign_requests.document_id': params.id, 'sign_requests.api_key_id': caller.apiKey.id }),
        { ...query, table: 'sign_requests' },
      );
      return { data: await present(items), next_cursor };
    },
  );
  routes.add(
    {
      method: 'get',
      path: '/sign-requests/:id',
      operationId: 'getSignRequest',
      summary: 'Status of one sign request of this key',
      tag: 'Signing',
      needs: L1_REQUEST_NEEDS,
      params: IdParamsSchema,
      response: SignRequestResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params }) => {
      const request = await SignRequest.query(deps.db)
        .findById(params.id)
        .where({ api_key_id: callerOf(ctx).apiKey.id });
      if (!request) throw errors.notFound(t('errors.signing.no_such_sign_request_key'));
      return (await present([request]))[0];
    },
  );
}

import { agentActor } from '../../activities/documents/documents';
import { ACCEPT_OFFER_NEEDS, type AcceptDeps, acceptOffer, escalateOffer } from '../../activities/offers/accept';
import { ackOffer, declineOffer, getOffer, listOffers, OFFER_RULES_NEED, proposeOffer } from '../../activities/offers/offers';
import type { Services } from '../../activities/services';
import type { Offer } from '../../db/models';
import type { ErrorCode } from '../../lib/errors';
import { requestMeta } from '../http/request';
import { type ApiContext, callerOf, type RouteSpec, type Routes } from '../http/route';
import { applyProcessing } from '../shared/apply-processing';
import { EmptyBodySchema, IdParamsSchema } from '../shared/schema';
import { presentOffer } from './presenter';
import { OfferCreateSchema, OfferListQuerySchema, OfferListResponseSchema, OfferResponseSchema } from './schema';

/** What an accept can answer beyond the offer's own states: every refusal of the apply procedure. */
const ACCEPT_ERRORS: ErrorCode[] = [
  'not_found',
  'invalid_state',
  'expired',
  'document_changed',
  'insufficient_scope',
  'mandate_required',
  'mandate_inactive',
  'principal_not_signer',
  'mandate_scope',
  'missing_appearance',
  'missing_signature_fields',
  'unfilled_fields',
  'already_signed',
  'strict_order',
  'pending_exists',
  'sign_failed',
  'service_unavailable',
];

export function offerRoutes(routes: Routes, deps: Services): void {
  const base = { tag: 'Offers', needs: { ...OFFER_RULES_NEED, scope: 'offers:write' } } as const;
  const rules: AcceptDeps = deps;
  const actor = (ctx: ApiContext) => agentActor(callerOf(ctx), requestMeta(ctx));
  const present = (ctx: ApiContext, offer: Offer) =>
    presentOffer(offer, { principalId: callerOf(ctx).principal.id, appUrl: deps.config.appUrl, secret: deps.secret });

  const action = (
    name: string,
    spec: Partial<RouteSpec> & Pick<RouteSpec, 'summary'>,
    run?: (ctx: ApiContext, id: string) => Promise<Offer>,
  ) =>
    routes.add(
      {
        ...base,
        method: 'post',
        path: `/offers/:id/${name}`,
        operationId: `${name}Offer`,
        params: IdParamsSchema,
        body: EmptyBodySchema,
        response: OfferResponseSchema,
        errors: ['not_found', 'invalid_state', 'expired'],
        ...spec,
      },
      run && (async (ctx, { params }) => present(ctx, await run(ctx, params.id))),
    );

  routes.add(
    {
      ...base,
      method: 'get',
      path: '/offers',
      operationId: 'listOffers',
      summary: 'Inbound and outbound offers of this key’s principal, newest first',
      query: OfferListQuerySchema,
      response: OfferListResponseSchema,
    },
    async (ctx, { query }) => {
      const { items, next_cursor } = await listOffers(rules, callerOf(ctx), query);
      return { data: items.map((offer) => present(ctx, offer)), next_cursor };
    },
  );
  routes.add(
    {
      ...base,
      method: 'get',
      path: '/offers/:id',
      operationId: 'getOffer',
      summary: 'One offer, for either party',
      params: IdParamsSchema,
      response: OfferResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params }) => present(ctx, await getOffer(rules, callerOf(ctx), params.id)),
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/documents/:id/offers',
      operationId: 'proposeContract',
      summary: 'Offer a sent document to a contact’s principal, bound to the SHA-256 of its current PDF',
      description:
        'The document is this account’s and `sent`; the contact is active and its principal one of the signers. `offer.received` goes to the counterparty, `offer.sent` to the offeror.',
      params: IdParamsSchema,
      body: OfferCreateSchema,
      response: OfferResponseSchema,
      status: 201,
      errors: ['not_found', 'invalid_state', 'principal_not_signer', 'already_signed', 'service_unavailable'],
    },
    async (ctx, { params, body }) => {
      const offer = await proposeOffer(rules, callerOf(ctx), params.id, body, actor(ctx));
      return present(ctx, offer);
    },
  );
  action('ack', { summary: 'Acknowledge an inbound offer (pending → acknowledged)' }, (ctx, id) =>
    ackOffer(rules, callerOf(ctx), id, actor(ctx)),
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/offers/:id/accept',
      operationId: 'acceptOffer',
      summary: 'Accept: signs now on the L2 path, or escalates to the principal (L1)',
      description:
        'Needs the scope `documents:sign`. With an L2 mandate covering the document, in policy, `l2_signing` on and no human signature required, the stored appearance is applied now (status `accepted`, with the receipt); otherwise the offer is `escalated` and `confirm_url` is e-mailed to the principal. 409 `document_changed` when the PDF changed since the offer.',
      params: IdParamsSchema,
      body: EmptyBodySchema,
      response: OfferResponseSchema,
      accepted: applyProcessing('the offer with `processing: true`'),
      needs: ACCEPT_OFFER_NEEDS,
      errors: ACCEPT_ERRORS,
    },
    async (ctx, { params }) => {
      const { offer, processing } = await acceptOffer(rules, callerOf(ctx), params.id, actor(ctx));
      if (processing) ctx.status = 202;
      return present(ctx, offer);
    },
  );
  action('decline', { summary: 'Decline an inbound offer; nothing is signed' }, (ctx, id) =>
    declineOffer(rules, callerOf(ctx), id, actor(ctx)),
  );
  action(
    'escalate',
    {
      summary: 'Always take the L1 path: the principal confirms in the app',
      errors: [
        'not_found',
        'invalid_state',
        'expired',
        'document_changed',
        'mandate_required',
        'mandate_inactive',
        'principal_not_signer',
        'mandate_scope',
        'already_signed',
        'pending_exists',
        'feature_disabled',
        'service_unavailable',
      ],
    },
    (ctx, id) => escalateOffer(rules, callerOf(ctx), id, actor(ctx)),
  );
  const reserved = {
    description: 'Reserved by the agent signing protocol 0.1; answers 501 `not_implemented`.',
    errors: ['not_implemented'] as ErrorCode[],
  };
  action('counter', { ...reserved, summary: 'Reserved operation of the offer protocol' });
  action('revoke_mandate', { ...reserved, summary: 'Reserved operation of the offer protocol', operationId: 'revokeMandateOffer' });
}

import { agentActor } from '../../activities/documents/documents';
import type { Services } from '../../activities/services';
import {
  acceptTransfer,
  bindBySession,
  type Claim,
  claimTransfer,
  mintDownloads,
  publicClaim,
  publicDownloads,
} from '../../activities/transfers/claims';
import {
  cancelTransfer,
  claimUrl,
  createTransfer,
  listTransfers,
  offerTransfer,
  type TransferDeps,
  transferView,
  visibleTransfer,
} from '../../activities/transfers/transfers';
import { Document } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { requireSameOrigin, sessionOf } from '../app/session';
import { actorFrom, requestMeta } from '../http/request';
import { type ApiContext, callerOf, type Routes } from '../http/route';
import { ConfirmSchema, EmptyBodySchema, IdParamsSchema, TokenBodySchema, TokenParamsSchema } from '../shared/schema';
import { presentDownloads, presentPublicTransfer, presentTransfer } from './presenter';
import {
  ClaimResponseSchema,
  DownloadsResponseSchema,
  OfferedTransferSchema,
  PublicTransferSchema,
  TransferCreateSchema,
  TransferListQuerySchema,
  TransferListResponseSchema,
  TransferResponseSchema,
} from './schema';

export function transferRoutes(routes: Routes, deps: Services): void {
  const base = { tag: 'Transfers', needs: { scope: 'transfers:write' } } as const;
  const open = { tag: 'Public transfers', auth: 'none' } as const;
  const rules: TransferDeps = deps;
  const actor = (ctx: ApiContext) => agentActor(callerOf(ctx), requestMeta(ctx));
  const guest = (ctx: ApiContext) => actorFrom(ctx, { type: 'recipient' });
  const presentClaim = async ({ view, recipient, bound }: Claim) => {
    const document = view.transfer.document_id ? await Document.query(deps.db).findById(view.transfer.document_id) : undefined;
    return { bound, transfer: presentPublicTransfer(view, recipient, document) };
  };

  routes.add(
    {
      ...base,
      method: 'post',
      path: '/transfers',
      operationId: 'createTransfer',
      summary: 'Create a package from Drive files: share, sign-to-unlock (document_id) or accept-to-unlock (requires_acceptance)',
      body: TransferCreateSchema,
      response: TransferResponseSchema,
      status: 201,
      errors: ['not_found', 'invalid_state'],
    },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      return presentTransfer(await createTransfer(rules, caller, body, actor(ctx)), caller.principal.id);
    },
  );
  routes.add(
    {
      ...base,
      method: 'get',
      path: '/transfers',
      operationId: 'listTransfers',
      summary: 'Packages this principal sent or received, newest first',
      query: TransferListQuerySchema,
      response: TransferListResponseSchema,
    },
    async (ctx, { query }) => {
      const { principal } = callerOf(ctx);
      const { items, next_cursor } = await listTransfers(deps.db, principal, query);
      const views = await Promise.all(items.map((transfer) => transferView(deps.db, transfer)));
      return { data: views.map((view) => presentTransfer(view, principal.id)), next_cursor };
    },
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/transfers/claim',
      operationId: 'claimTransfer',
      summary: 'Claim by token: binds when the key’s e-mail is the recipient’s, else a guest capability',
      body: TokenBodySchema,
      response: ClaimResponseSchema,
      errors: ['not_found', 'invalid_state'],
    },
    async (ctx, { body }) => presentClaim(await claimTransfer(rules, callerOf(ctx).principal, body.token, actor(ctx))),
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/transfers/accept',
      operationId: 'acceptTransfer',
      summary: 'Accept by token (accept-to-unlock): the files unlock when every recipient accepted',
      body: TokenBodySchema,
      response: ClaimResponseSchema,
      errors: ['not_found', 'invalid_state'],
    },
    async (ctx, { body }) => presentClaim(await acceptTransfer(rules, body.token, actor(ctx))),
  );
  routes.add(
    {
      ...base,
      method: 'get',
      path: '/transfers/:id',
      operationId: 'getTransfer',
      summary: 'Package detail, for its sender and its recipients',
      params: IdParamsSchema,
      response: TransferResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params }) => {
      const { principal } = callerOf(ctx);
      const { transfer } = await visibleTransfer(deps.db, principal, params.id);
      return presentTransfer(await transferView(deps.db, transfer), principal.id);
    },
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/transfers/:id/offer',
      operationId: 'offerTransfer',
      summary: 'Offer: mints each recipient’s claim link (e-mailed); the raw token is returned once',
      params: IdParamsSchema,
      body: ConfirmSchema,
      response: OfferedTransferSchema,
      errors: ['not_found', 'invalid_state', 'service_unavailable'],
    },
    async (ctx, { params }) => {
      const caller = callerOf(ctx);
      const { view, tokens } = await offerTransfer(rules, caller, params.id, actor(ctx));
      const presented = presentTransfer(view, caller.principal.id);
      return {
        ...presented,
        recipients: presented.recipients.map((recipient) => {
          const token = tokens.get(recipient.recipient_id)!;
          return { ...recipient, claim_url: claimUrl(deps.config.appUrl, token), token };
        }),
      };
    },
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/transfers/:id/downloads',
      operationId: 'mintTransferDownloads',
      summary: 'Short-lived download URLs of a released package (its sender or a bound recipient)',
      params: IdParamsSchema,
      body: EmptyBodySchema,
      response: DownloadsResponseSchema,
      errors: ['not_found', 'invalid_state'],
    },
    async (ctx, { params }) => presentDownloads(params.id, await mintDownloads(rules, callerOf(ctx).principal, params.id, actor(ctx))),
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/transfers/:id/cancel',
      operationId: 'cancelTransfer',
      summary: 'Cancel a created or offered package; its claim links stop working',
      params: IdParamsSchema,
      body: EmptyBodySchema,
      response: TransferResponseSchema,
      errors: ['not_found', 'invalid_state'],
    },
    async (ctx, { params }) => {
      const caller = callerOf(ctx);
      return presentTransfer(await cancelTransfer(rules, caller, params.id, actor(ctx)), caller.principal.id);
    },
  );
  routes.add(
    {
      ...open,
      method: 'get',
      path: '/public/transfers/:token',
      operationId: 'getPublicTransfer',
      summary: 'Guest claim metadata: what is offered, by whom, where it stands; never a file URL',
      params: TokenParamsSchema,
      response: PublicTransferSchema,
      errors: ['not_found'],
    },
    async (ctx, { params }) => {
      ctx.set('Referrer-Policy', 'no-referrer');
      const { view, recipient } = await publicClaim(deps.db, params.token);
      return (await presentClaim({ view, recipient, bound: false })).transfer;
    },
  );
  routes.add(
    {
      ...open,
      method: 'post',
      path: '/public/transfers/:token/accept',
      operationId: 'acceptPublicTransfer',
      summary: 'Guest accept (accept-to-unlock), no account',
      params: TokenParamsSchema,
      body: EmptyBodySchema,
      response: PublicTransferSchema,
      errors: ['not_found', 'invalid_state'],
    },
    async (ctx, { params }) => (await presentClaim(await acceptTransfer(rules, params.token, guest(ctx)))).transfer,
  );
  routes.add(
    {
      ...open,
      method: 'post',
      path: '/public/transfers/:token/downloads',
      operationId: 'mintPublicTransferDownloads',
      summary: 'Guest download URLs, after release',
      params: TokenParamsSchema,
      body: EmptyBodySchema,
      response: DownloadsResponseSchema,
      errors: ['not_found', 'invalid_state'],
    },
    async (ctx, { params }) => {
      const { transferId, links } = await publicDownloads(rules, params.token, guest(ctx));
      return presentDownloads(transferId, links);
    },
  );
  routes.add(
    {
      ...open,
      method: 'post',
      path: '/public/transfers/:token/bind',
      operationId: 'bindPublicTransfer',
      summary: 'Bind the claim to the principal signed in to the app (its e-mail must be the recipient’s)',
      description: 'Authenticated by the app session cookie, not an API key; a session of another e-mail gets 404.',
      params: TokenParamsSchema,
      body: EmptyBodySchema,
      response: ClaimResponseSchema,
      errors: ['not_found', 'unauthorized', 'cross_origin', 'invalid_state'],
    },
    async (ctx, { params }) => {
      // Authenticated by a cookie, so only this service's own pages may post it (not another site's, not a sibling subdomain's).
      requireSameOrigin(ctx, deps);
      const principal = await sessionOf(ctx, deps);
      if (!principal) throw errors.unauthorized(t('errors.transfers.sign_app_recipient_first'));
      return presentClaim(await bindBySession(rules, params.token, principal, actorFrom(ctx, { type: 'principal', id: principal.id })));
    },
  );
}

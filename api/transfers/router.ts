import type { Routes } from '../http/route';
import { ConfirmSchema, EmptyBodySchema, IdParamsSchema, ListQuerySchema, TokenBodySchema, TokenParamsSchema } from '../shared/schema';
import { TransferCreateSchema } from './schema';

export function transferRoutes(routes: Routes): void {
  const base = { tag: 'Transfers' } as const;
  const open = { tag: 'Public transfers', auth: 'none' } as const;
  routes.add({
    ...base,
    method: 'post',
    path: '/transfers',
    operationId: 'createTransfer',
    summary: 'Create a package from Drive files',
    body: TransferCreateSchema,
    status: 201,
    errors: ['not_found'],
  });
  routes.add({
    ...base,
    method: 'get',
    path: '/transfers',
    operationId: 'listTransfers',
    summary: 'Sent and received packages',
    query: ListQuerySchema,
  });
  routes.add({
    ...base,
    method: 'post',
    path: '/transfers/claim',
    operationId: 'claimTransfer',
    summary: 'Claim by token: binds when the key’s e-mail matches the recipient',
    body: TokenBodySchema,
    errors: ['not_found', 'expired', 'invalid_state'],
  });
  routes.add({
    ...base,
    method: 'post',
    path: '/transfers/accept',
    operationId: 'acceptTransfer',
    summary: 'Accept by token (accept-to-unlock)',
    body: TokenBodySchema,
    errors: ['not_found', 'invalid_state'],
  });
  routes.add({
    ...base,
    method: 'get',
    path: '/transfers/:id',
    operationId: 'getTransfer',
    summary: 'Package detail',
    params: IdParamsSchema,
    errors: ['not_found'],
  });
  routes.add({
    ...base,
    method: 'post',
    path: '/transfers/:id/offer',
    operationId: 'offerTransfer',
    summary: 'Offer: mints claim links; the raw token is returned once',
    params: IdParamsSchema,
    body: ConfirmSchema,
    errors: ['not_found', 'invalid_state'],
  });
  routes.add({
    ...base,
    method: 'post',
    path: '/transfers/:id/downloads',
    operationId: 'mintTransferDownloads',
    summary: 'Short-lived download URLs (sender or bound recipient)',
    params: IdParamsSchema,
    body: EmptyBodySchema,
    errors: ['not_found', 'invalid_state'],
  });
  routes.add({
    ...base,
    method: 'post',
    path: '/transfers/:id/cancel',
    operationId: 'cancelTransfer',
    summary: 'Cancel and revoke claim links',
    params: IdParamsSchema,
    body: EmptyBodySchema,
    errors: ['not_found', 'invalid_state'],
  });
  routes.add({
    ...open,
    method: 'get',
    path: '/public/transfers/:token',
    operationId: 'getPublicTransfer',
    summary: 'Guest claim metadata; never contains file URLs',
    params: TokenParamsSchema,
    errors: ['not_found', 'expired'],
  });
  routes.add({
    ...open,
    method: 'post',
    path: '/public/transfers/:token/accept',
    operationId: 'acceptPublicTransfer',
    summary: 'Guest accept, no account',
    params: TokenParamsSchema,
    body: EmptyBodySchema,
    errors: ['not_found', 'invalid_state'],
  });
  routes.add({
    ...open,
    method: 'post',
    path: '/public/transfers/:token/downloads',
    operationId: 'mintPublicTransferDownloads',
    summary: 'Guest download URLs after release',
    params: TokenParamsSchema,
    body: EmptyBodySchema,
    errors: ['not_found', 'invalid_state'],
  });
  routes.add({
    ...open,
    method: 'post',
    path: '/public/transfers/:token/bind',
    operationId: 'bindPublicTransfer',
    summary: 'Bind the claim to a matching logged-in app session',
    params: TokenParamsSchema,
    body: EmptyBodySchema,
    errors: ['not_found', 'unauthorized'],
  });
}

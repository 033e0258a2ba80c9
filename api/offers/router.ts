import type { Routes } from '../http/route';
import { EmptyBodySchema, IdParamsSchema, ListQuerySchema } from '../shared/schema';
import { OfferCreateSchema } from './schema';

export function offerRoutes(routes: Routes): void {
  const base = { tag: 'Offers', flag: 'agent_offers' } as const;
  const action = (name: string, summary: string, extra: Partial<Parameters<Routes['add']>[0]> = {}) =>
    routes.add({
      ...base,
      method: 'post',
      path: `/offers/:id/${name}`,
      operationId: `${name}Offer`,
      summary,
      params: IdParamsSchema,
      body: EmptyBodySchema,
      errors: ['not_found', 'invalid_state', 'expired'],
      ...extra,
    });

  routes.add({
    ...base,
    method: 'get',
    path: '/offers',
    operationId: 'listOffers',
    summary: 'Inbound and outbound offers',
    query: ListQuerySchema,
  });
  routes.add({
    ...base,
    method: 'get',
    path: '/offers/:id',
    operationId: 'getOffer',
    summary: 'One offer',
    params: IdParamsSchema,
    errors: ['not_found'],
  });
  routes.add({
    ...base,
    method: 'post',
    path: '/documents/:id/offers',
    operationId: 'proposeContract',
    summary: 'Offer a sent document to a contact’s principal, bound to the SHA-256 of its current PDF',
    params: IdParamsSchema,
    body: OfferCreateSchema,
    status: 201,
    errors: ['not_found', 'invalid_state', 'principal_not_signer'],
  });
  action('ack', 'Acknowledge an inbound offer');
  action('accept', 'Accept: signs on the L2 path, or escalates to an L1 sign request', {
    scope: 'documents:sign',
    errors: [
      'not_found',
      'invalid_state',
      'expired',
      'document_changed',
      'mandate_required',
      'mandate_inactive',
      'rate_limited',
      'sign_failed',
    ],
  });
  action('decline', 'Decline an inbound offer');
  action('escalate', 'Always take the L1 path: the principal confirms in the app');
  action('counter', 'Reserved operation of the offer protocol', {
    description: 'Reserved by the agent signing protocol 0.1; answers 501 `not_implemented`.',
    errors: ['not_implemented'],
  });
  action('revoke_mandate', 'Reserved operation of the offer protocol', {
    operationId: 'revokeMandateOffer',
    description: 'Reserved by the agent signing protocol 0.1; answers 501 `not_implemented`.',
    errors: ['not_implemented'],
  });
}

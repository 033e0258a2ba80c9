import type { Routes } from '../http/route';
import { EmptyBodySchema, IdParamsSchema, ListQuerySchema, TokenBodySchema } from '../shared/schema';
import { ContactCreateSchema } from './schema';

export function contactRoutes(routes: Routes): void {
  const base = { tag: 'Contacts', flag: 'agent_contacts' } as const;
  routes.add({
    ...base,
    method: 'get',
    path: '/contacts',
    operationId: 'listContacts',
    summary: 'Contacts of this principal',
    query: ListQuerySchema,
  });
  routes.add({
    ...base,
    method: 'post',
    path: '/contacts',
    operationId: 'inviteContact',
    summary: 'Invite another principal by e-mail',
    body: ContactCreateSchema,
    status: 201,
  });
  routes.add({
    ...base,
    method: 'post',
    path: '/contacts/accept',
    operationId: 'acceptContactByToken',
    summary: 'Accept an invite by its token',
    body: TokenBodySchema,
    errors: ['not_found', 'invalid_state', 'expired'],
  });
  routes.add({
    ...base,
    method: 'get',
    path: '/contacts/:id',
    operationId: 'getContact',
    summary: 'One contact',
    params: IdParamsSchema,
    errors: ['not_found'],
  });
  routes.add({
    ...base,
    method: 'post',
    path: '/contacts/:id/accept',
    operationId: 'acceptContact',
    summary: 'Accept an inbound invite',
    params: IdParamsSchema,
    body: EmptyBodySchema,
    errors: ['not_found', 'invalid_state'],
  });
  routes.add({
    ...base,
    method: 'post',
    path: '/contacts/:id/revoke',
    operationId: 'revokeContact',
    summary: 'Revoke on both sides',
    params: IdParamsSchema,
    body: EmptyBodySchema,
    errors: ['not_found', 'invalid_state'],
  });
}

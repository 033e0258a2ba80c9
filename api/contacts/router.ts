import {
  acceptContact,
  acceptContactByToken,
  CONTACT_RULES_NEED,
  type ContactDeps,
  findContact,
  inviteContact,
  inviteMailKey,
  listContacts,
  revokeContact,
} from '../../activities/contacts/contacts';
import { agentActor } from '../../activities/documents/documents';
import { mailStates } from '../../activities/mail/status';
import type { Services } from '../../activities/services';
import type { Contact } from '../../db/models';
import { requestMeta } from '../http/request';
import { type ApiContext, callerOf, type Routes } from '../http/route';
import { EmptyBodySchema, IdParamsSchema, ListQuerySchema } from '../shared/schema';
import { presentContact } from './presenter';
import {
  ContactAcceptByTokenSchema,
  ContactAcceptSchema,
  ContactCreateSchema,
  ContactListResponseSchema,
  ContactResponseSchema,
  ContactWithSecretSchema,
} from './schema';

export function contactRoutes(routes: Routes, deps: Services): void {
  const base = { tag: 'Contacts', needs: { ...CONTACT_RULES_NEED, scope: 'contacts:write' } } as const;
  const rules: ContactDeps = deps;
  const party = (ctx: ApiContext) => {
    const caller = callerOf(ctx);
    return { principal: caller.principal, apiKeyId: caller.apiKey.id };
  };
  const actor = (ctx: ApiContext) => agentActor(callerOf(ctx), requestMeta(ctx));

  /** Contacts as their owner sees them, each inviter's side with the state of its invitation mail. */
  const present = async (contacts: Contact[]) => {
    const mails = await mailStates(
      deps.db,
      contacts.filter((c) => c.direction === 'outbound').map((c) => inviteMailKey(c.pair_id)),
    );
    return contacts.map((contact) =>
      presentContact(contact, { appUrl: deps.config.appUrl, secret: deps.secret, mail: mails.get(inviteMailKey(contact.pair_id)) }),
    );
  };
  const withSecret = async ({ contact, inboxSecret }: { contact: Contact; inboxSecret?: string }) => ({
    ...(await present([contact]))[0],
    ...(inboxSecret ? { inbox_secret: inboxSecret } : {}),
  });

  routes.add(
    {
      ...base,
      method: 'get',
      path: '/contacts',
      operationId: 'listContacts',
      summary: 'Contacts of this key’s principal (invitations both ways, active and revoked), newest first',
      query: ListQuerySchema,
      response: ContactListResponseSchema,
    },
    async (ctx, { query }) => {
      const { items, next_cursor } = await listContacts(rules, party(ctx), query);
      return { data: await present(items), next_cursor };
    },
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/contacts',
      operationId: 'inviteContact',
      summary: 'Invite another principal by e-mail; they accept at accept_url (e-mailed to them)',
      description:
        'The invitee’s principal accepts in the app, or its agent with POST /contacts/:id/accept or POST /contacts/accept. `inbox_url` follows the webhook URL rules; its signing secret is shown once.',
      body: ContactCreateSchema,
      response: ContactWithSecretSchema,
      status: 201,
      errors: ['conflict', 'service_unavailable'],
    },
    async (ctx, { body }) => withSecret(await inviteContact(rules, party(ctx), body, actor(ctx))),
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/contacts/accept',
      operationId: 'acceptContactByToken',
      summary: 'Accept an invitation by the token of its accept_url (a key of the invited principal only)',
      body: ContactAcceptByTokenSchema,
      response: ContactWithSecretSchema,
      errors: ['not_found', 'invalid_state'],
    },
    async (ctx, { body }) => withSecret(await acceptContactByToken(rules, party(ctx), body.token, body, actor(ctx))),
  );
  routes.add(
    {
      ...base,
      method: 'get',
      path: '/contacts/:id',
      operationId: 'getContact',
      summary: 'One contact of this key’s principal',
      params: IdParamsSchema,
      response: ContactResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params }) => (await present([await findContact(deps.db, callerOf(ctx).principal.id, params.id)]))[0],
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/contacts/:id/accept',
      operationId: 'acceptContact',
      summary: 'Accept an inbound invitation: both sides become active',
      params: IdParamsSchema,
      body: ContactAcceptSchema,
      response: ContactWithSecretSchema,
      errors: ['not_found', 'invalid_state'],
    },
    async (ctx, { params, body }) => withSecret(await acceptContact(rules, party(ctx), params.id, body, actor(ctx))),
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/contacts/:id/revoke',
      operationId: 'revokeContact',
      summary: 'Revoke on both sides (an invitation is cancelled); no offer can be made or accepted afterwards',
      params: IdParamsSchema,
      body: EmptyBodySchema,
      response: ContactResponseSchema,
      errors: ['not_found', 'invalid_state'],
    },
    async (ctx, { params }) => (await present([await revokeContact(rules, party(ctx), params.id, actor(ctx))]))[0],
  );
}

import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { isUniqueViolation } from '../../db/errors';
import { Contact, Principal } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { newId, newUuid } from '../../lib/ids';
import { page } from '../../lib/paging';
import { idFromToken, idToken } from '../../lib/secrets/signed';
import { normalizeEmail } from '../accounts/accounts';
import { authorize, type Requirements } from '../accounts/authorize';
import { type Actor, recordAudit } from '../audit/audit';
import { emitEvent, sealedLink } from '../events/outbox';
import { type MailQueueDeps, queueMail } from '../mail/queue';
import { newInbox } from '../webhooks/inbox';
import { contactInviteMail } from './mails';

/** What every contact rule requires: agent contacts on (the contact routes read it too). */
export const CONTACT_RULES_NEED = { flag: 'agent_contacts' } as const satisfies Requirements;

export interface ContactDeps extends MailQueueDeps {
  db: Db;
  secret: Buffer;
}

/**
 * The principal a surface acts for: an API key's principal (REST, MCP, CLI) or a principal signed in
 * to the app. Contacts belong to principals: a key of another principal never sees them.
 */
export interface ContactParty {
  principal: Principal;
  apiKeyId?: string;
}

const TOKEN_PURPOSE = 'contact-accept';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The accept link names the pair (both sides show the same link); its MAC stops forged ones. */
export function contactAcceptToken(secret: Buffer, pairId: string): string {
  return idToken(secret, TOKEN_PURPOSE, pairId);
}

export function acceptUrl(appUrl: string, secret: Buffer, pairId: string): string {
  return `${appUrl}/agent-contacts?accept=${encodeURIComponent(contactAcceptToken(secret, pairId))}`;
}

/** The invitation mail is sent once per pair: this key names it (and its state, for the inviter). */
export function inviteMailKey(pairId: string): string {
  return `contact-invite:${pairId}`;
}

function checkFlag(deps: ContactDeps): void {
  authorize(null, CONTACT_RULES_NEED, deps.config.flags.values);
}

/**
 * Invitations to this principal's e-mail made before they had an account get their inbound copy
 * now, so every invitation has an id the invitee (and its keys) can act on.
 */
export async function syncInvitations(db: Db, principal: Principal): Promise<void> {
  const missing = await Contact.query(db)
    .where({ 'contacts.direction': 'outbound', 'contacts.status': 'invited' })
    .whereRaw('lower(contacts.counterparty_email) = ?', [normalizeEmail(principal.email)])
    .whereNot('contacts.principal_id', principal.id)
    .whereRaw('not exists (select 1 from contacts mine where mine.pair_id = contacts.pair_id and mine.principal_id = ?)', [principal.id])
    .join('principals', 'principals.id', 'contacts.principal_id')
    .select('contacts.*', 'principals.email as inviter_email', 'principals.name as inviter_name');
  for (const outbound of missing as Array<Contact & { inviter_email: string; inviter_name: string }>) {
    await Contact.query(db)
      .insert(inboundCopy(outbound, principal, { email: outbound.inviter_email, name: outbound.inviter_name }))
      .onConflict()
      .ignore();
  }
}

/** The invitee's side of an invitation: the same pair, seen from the other principal. */
function inboundCopy(outbound: Contact, invitee: Principal, inviter: { email: string; name: string }) {
  return {
    id: newId('ct'),
    pair_id: outbound.pair_id,
    tenant_id: invitee.tenant_id,
    principal_id: invitee.id,
    direction: 'inbound' as const,
    counterparty_email: normalizeEmail(inviter.email),
    counterparty_name: inviter.name,
    counterparty_principal_id: outbound.principal_id,
    status: outbound.status,
  };
}

/** The side of a contact that belongs to this principal; 404 for anyone else's. */
export async function findContact(db: Db | Knex.Transaction, principalId: string, id: string): Promise<Contact> {
  const contact = await Contact.query(db).findById(id).where({ principal_id: principalId });
  if (!contact) throw errors.notFound(t('errors.contacts.no_such_contact'));
  return contact;
}

export async function listContacts(deps: ContactDeps, party: ContactParty, list: { limit: number; cursor?: string }) {
  checkFlag(deps);
  await syncInvitations(deps.db, party.principal);
  return page(Contact.query(deps.db).where('contacts.principal_id', party.principal.id), { ...list, table: 'contacts' });
}

/** What a contact event says to one side: its own contact id and the other principal's e-mail. */
function contactEventData<Extra extends object = object>(contact: Contact, extra: Extra = {} as Extra) {
  return { contact_id: contact.id, pair_id: contact.pair_id, counterparty_email: contact.counterparty_email, ...extra };
}

export interface ContactWithSecret {
  contact: Contact;
  /** The inbox_url's signing secret, shown once (only when an inbox_url was set by this call). */
  inboxSecret?: string;
}

/**
 * POST /contacts: invites another principal by e-mail. Both sides exist at once when the e-mail
 * is a registered principal (the invitee's copy is made when they sign up otherwise); the invitee
 * is e-mailed the accept link in the same transaction (the mail commits with the invitation).
 */
export async function inviteContact(
  deps: ContactDeps,
  party: ContactParty,
  input: { email: string; name: string; inbox_url?: string },
  actor: Actor,
): Promise<ContactWithSecret> {
  checkFlag(deps);
  const me = party.principal;
  const email = normalizeEmail(input.email);
  if (email === normalizeEmail(me.email))
    throw errors.invalidRequest(t('errors.contacts.cannot_invite_yourself'), [{ path: 'email', message: 'your own e-mail' }]);
  const inbox = input.inbox_url
    ? await newInbox({ secret: deps.secret, allowedHosts: deps.config.webhooks.allowedHosts }, input.inbox_url)
    : undefined;
  await syncInvitations(deps.db, me);
  const invitee = await Principal.query(deps.db).whereRaw('lower(email) = ?', [email]).first();
  if (invitee) await syncInvitations(deps.db, invitee);
  const pairId = newUuid();
  const url = acceptUrl(deps.config.appUrl, deps.secret, pairId);
  try {
    const contact = await deps.db.transaction(async (trx) => {
      const outbound = await Contact.query(trx).insertAndFetch({
        id: newId('ct'),
        pair_id: pairId,
        tenant_id: me.tenant_id,
        principal_id: me.id,
        direction: 'outbound',
        counterparty_email: email,
        counterparty_name: input.name.trim(),
        counterparty_principal_id: invitee?.id ?? null,
        status: 'invited',
        ...(inbox?.columns ?? {}),
        created_by_key_id: party.apiKeyId ?? null,
      });
      const inbound = invitee ? await Contact.query(trx).insertAndFetch(inboundCopy(outbound, invitee, me)) : undefined;
      for (const side of [outbound, inbound]) {
        if (!side) continue;
        await recordAudit(trx, {
          tenantId: side.tenant_id,
          actor: side === outbound ? actor : { type: 'system' },
          action: 'contact.invited',
          data: { contact_id: side.id, pair_id: pairId, counterparty_email: side.counterparty_email },
        });
        await emitEvent(
          trx,
          side.tenant_id,
          'contact.invited',
          contactEventData(side, { accept_url: sealedLink(deps.secret, url) }),
          side.id,
        );
      }
      await queueMail(
        deps,
        {
          to: email,
          ...contactInviteMail({ inviteeName: input.name.trim(), inviterName: me.name, inviterEmail: me.email, to: email, acceptUrl: url }),
          purpose: 'contact-invite',
          tenantId: me.tenant_id,
          secrets: [contactAcceptToken(deps.secret, pairId)],
          dedupeKey: inviteMailKey(pairId),
        },
        trx,
      );
      return outbound;
    });
    return { contact, inboxSecret: inbox?.secret };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const theirs =
      invitee &&
      (await Contact.query(deps.db)
        .where({ principal_id: me.id })
        .whereIn('status', ['invited', 'active'])
        .whereRaw('lower(counterparty_email) = ?', [email])
        .first());
    if (theirs?.direction === 'inbound' && theirs.status === 'invited')
      throw errors.conflict(t('errors.contacts.already_invited_accept_their_invitation', { email, contact: theirs.id }));
    if (theirs) throw errors.conflict(t('errors.contacts.already_contact_with_id', { email, contact: theirs.id, status: theirs.status }));
    throw errors.conflict(t('errors.contacts.already_contact', { email }));
  }
}

/** Both sides of a pair, locked, in the caller's transaction. */
async function pairOf(trx: Knex.Transaction, pairId: string): Promise<Contact[]> {
  return Contact.query(trx).where({ pair_id: pairId }).orderBy('direction', 'desc').forUpdate();
}

/**
 * The invitee accepts: both sides become active in one transaction, and each side hears
 * `contact.accepted`. Accepting a contact that is already active answers it unchanged.
 */
async function acceptPair(
  deps: ContactDeps,
  party: ContactParty,
  pairId: string,
  input: { inbox_url?: string },
  actor: Actor,
): Promise<ContactWithSecret> {
  const inbox = input.inbox_url
    ? await newInbox({ secret: deps.secret, allowedHosts: deps.config.webhooks.allowedHosts }, input.inbox_url)
    : undefined;
  const contact = await deps.db.transaction(async (trx) => {
    const sides = await pairOf(trx, pairId);
    const mine = sides.find((side) => side.principal_id === party.principal.id);
    if (!mine) throw errors.notFound(t('errors.contacts.no_such_invitation'));
    if (mine.direction === 'outbound')
      throw errors.invalidState(t('errors.contacts.own_invitation_accepts_not', { counterpartyEmail: mine.counterparty_email }));
    if (mine.status === 'revoked') throw errors.invalidState(t('errors.contacts.invitation_withdrawn_contact_revoked_cannot'));
    if (mine.status === 'active' && !inbox) return mine;
    const now = new Date();
    for (const side of sides) {
      const accepting = side.status === 'invited';
      await side.$query(trx).patch({
        status: 'active',
        ...(accepting ? { accepted_at: now } : {}),
        ...(side.direction === 'outbound' ? { counterparty_principal_id: party.principal.id } : {}),
        ...(side === mine && inbox ? inbox.columns : {}),
      });
      if (!accepting) continue;
      await recordAudit(trx, {
        tenantId: side.tenant_id,
        actor: side === mine ? actor : { type: 'system' },
        action: 'contact.accepted',
        data: { contact_id: side.id, pair_id: pairId },
      });
      await emitEvent(trx, side.tenant_id, 'contact.accepted', contactEventData(side), side.id);
    }
    return (await Contact.query(trx).findById(mine.id))!;
  });
  return { contact, inboxSecret: inbox?.secret };
}

/** POST /contacts/:id/accept: the invitee accepts its own inbound copy. */
export async function acceptContact(
  deps: ContactDeps,
  party: ContactParty,
  id: string,
  input: { inbox_url?: string },
  actor: Actor,
): Promise<ContactWithSecret> {
  checkFlag(deps);
  await syncInvitations(deps.db, party.principal);
  const contact = await findContact(deps.db, party.principal.id, id);
  return acceptPair(deps, party, contact.pair_id, input, actor);
}

/** The pair an accept token names, when the token is one this service made. */
export function pairFromToken(secret: Buffer, token: string): string | undefined {
  return idFromToken(secret, TOKEN_PURPOSE, token, UUID);
}

/**
 * POST /contacts/accept and the app's accept page: the token names the invitation; only the
 * principal it was sent to (by e-mail) may accept it. Anyone else learns nothing (404).
 */
export async function acceptContactByToken(
  deps: ContactDeps,
  party: ContactParty,
  token: string,
  input: { inbox_url?: string },
  actor: Actor,
): Promise<ContactWithSecret> {
  checkFlag(deps);
  const invitation = await invitationOf(deps, party.principal, token);
  return acceptPair(deps, party, invitation.pair_id, input, actor);
}

/**
 * The invitation a token names, as the principal it was sent to sees it (their inbound copy, made
 * now if they signed up after it was sent); 404 for a forged token or another principal.
 */
export async function invitationOf(deps: Pick<ContactDeps, 'db' | 'secret'>, principal: Principal, token: string): Promise<Contact> {
  const pairId = pairFromToken(deps.secret, token);
  const outbound = pairId ? await Contact.query(deps.db).findOne({ pair_id: pairId, direction: 'outbound' }) : undefined;
  if (!outbound) throw errors.notFound(t('errors.contacts.invitation_link_not_valid'));
  if (outbound.principal_id === principal.id)
    throw errors.invalidState(t('errors.contacts.own_invitation_accepts_not', { counterpartyEmail: outbound.counterparty_email }));
  if (normalizeEmail(outbound.counterparty_email) !== normalizeEmail(principal.email))
    throw errors.notFound(t('errors.contacts.no_such_invitation_sent_another'));
  await syncInvitations(deps.db, principal);
  const mine = await Contact.query(deps.db).findOne({ pair_id: outbound.pair_id, principal_id: principal.id });
  if (!mine) throw errors.invalidState(t('errors.contacts.invitation_withdrawn_cannot_accepted'));
  return mine;
}

/**
 * POST /contacts/:id/revoke: either side ends the relationship for both; revoking an invitation
 * cancels it. No new offer can be made or accepted between them afterwards.
 */
export async function revokeContact(deps: ContactDeps, party: ContactParty, id: string, actor: Actor): Promise<Contact> {
  checkFlag(deps);
  const contact = await findContact(deps.db, party.principal.id, id);
  return deps.db.transaction(async (trx) => {
    const sides = await pairOf(trx, contact.pair_id);
    const mine = sides.find((side) => side.id === contact.id)!;
    if (mine.status === 'revoked') throw errors.invalidState(t('errors.contacts.contact_already_revoked'));
    const now = new Date();
    for (const side of sides) {
      await side.$query(trx).patch({ status: 'revoked', revoked_at: now, revoked_by: side === mine ? 'self' : 'counterparty' });
      await recordAudit(trx, {
        tenantId: side.tenant_id,
        actor: side === mine ? actor : { type: 'system' },
        action: 'contact.revoked',
        data: { contact_id: side.id, pair_id: side.pair_id, was: mine.status },
      });
      await emitEvent(
        trx,
        side.tenant_id,
        'contact.revoked',
        contactEventData(side, { revoked_by: side === mine ? 'self' : 'counterparty' }),
        side.id,
      );
    }
    return (await Contact.query(trx).findById(mine.id))!;
  });
}

/** Every contact of a principal, newest first: for the app's page (a person's list stays short). */
export async function contactsOf(db: Db, principal: Principal): Promise<Contact[]> {
  await syncInvitations(db, principal);
  return Contact.query(db).where({ principal_id: principal.id }).orderBy('created_at', 'desc').orderBy('id', 'desc');
}

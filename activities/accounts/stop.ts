// The principal's safety valve: stopping an agent at once. Revoking a key revokes every mandate it
// holds in the same transaction (under the mandates' row locks, so an apply queued before commits
// nothing after), and every mail that reports an agent's action carries a "Stop this agent" link
// that works without signing in: the mailbox is enough, even while the app is out of reach.
import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { ApiKey, Mandate, Principal, type RevokedVia } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { idFromToken, idToken } from '../../lib/secrets/signed';
import { type Actor, recordAudit } from '../audit/audit';
import { emitEvent } from '../events/outbox';
import { SIGN_SCOPE } from './scopes';

/** What a stop revoked: the mandates (and the key, when it was revoked too). */
export interface Stopped {
  mandates: Mandate[];
  key?: ApiKey;
}

/**
 * Revokes one mandate under its row lock (a pending grant is dropped alike), takes `documents:sign`
 * off its key when no other mandate of the key is in force, and writes its audit line and
 * `mandate.revoked` event. Answers the mandate as revoked (unchanged when it was already).
 */
export async function revokeMandateIn(trx: Knex.Transaction, mandateId: string, actor: Actor, via: RevokedVia): Promise<Mandate> {
  const mandate = (await Mandate.query(trx).findById(mandateId).forUpdate())!;
  if (mandate.status === 'revoked') return mandate;
  const revoked = await mandate.$query(trx).patchAndFetch({
    status: 'revoked',
    revoked_at: new Date(),
    revoked_ip: actor.ip ?? null,
    revoked_via: via,
  });
  const key = (await ApiKey.query(trx).findById(mandate.api_key_id).forUpdate())!;
  const othersInForce = (await Mandate.query(trx).where({ api_key_id: key.id, status: 'active' })).filter((other) => other.isInForce());
  if (othersInForce.length === 0 && key.scopes.includes(SIGN_SCOPE))
    await key.$query(trx).patch({ scopes: key.scopes.filter((scope) => scope !== SIGN_SCOPE) });
  await recordAudit(trx, {
    tenantId: mandate.tenant_id,
    actor,
    action: 'mandate.revoked',
    data: {
      mandate_id: mandate.id,
      api_key_id: mandate.api_key_id,
      level: mandate.confirmation_level,
      consent_version: mandate.consent_version,
      scope_removed: othersInForce.length === 0,
      via,
    },
  });
  await emitEvent(trx, mandate.tenant_id, 'mandate.revoked', {
    mandate_id: mandate.id,
    api_key_id: mandate.api_key_id,
    confirmation_level: mandate.confirmation_level,
    revoked_at: revoked.revoked_at!.toISOString(),
    via,
  });
  return revoked;
}

/**
 * Revokes a key and, in the same transaction, every mandate it holds (active or pending): the key
 * answers 401 from then on, no apply of it commits (the apply re-checks its mandate under the row
 * lock taken here), and offers it made can no longer be accepted (the offeror holds no mandate).
 */
export async function revokeKeyIn(trx: Knex.Transaction, keyId: string, actor: Actor, via: Exclude<RevokedVia, 'key'>): Promise<Stopped> {
  const key = await ApiKey.query(trx).findById(keyId).forUpdate();
  if (!key) throw errors.notFound(t('errors.mandates.no_api_key', { keyId }));
  const live = await Mandate.query(trx).where({ api_key_id: key.id }).whereIn('status', ['active', 'pending']).orderBy('id');
  const mandates: Mandate[] = [];
  for (const mandate of live) mandates.push(await revokeMandateIn(trx, mandate.id, actor, 'key'));
  const revoked = key.revoked_at ? key : await key.$query(trx).patchAndFetch({ revoked_at: new Date(), revoked_via: via });
  if (!key.revoked_at) {
    const principal = (await Principal.query(trx).findById(key.principal_id))!;
    await recordAudit(trx, {
      tenantId: principal.tenant_id,
      actor,
      action: 'key.revoked',
      data: { api_key_id: key.id, label: key.label, mandates_revoked: mandates.map((mandate) => mandate.id), via },
    });
  }
  return { mandates, key: revoked };
}

export async function revokeKeyWithMandates(db: Db, keyId: string, actor: Actor, via: Exclude<RevokedVia, 'key'>): Promise<Stopped> {
  return db.transaction((trx) => revokeKeyIn(trx, keyId, actor, via));
}

const STOP_PURPOSE = 'stop-agent';

function stopToken(secret: Buffer, mandateId: string): string {
  return idToken(secret, STOP_PURPOSE, mandateId);
}

/** The "Stop this agent" link of a mandate: `{app}/stop/<mandate id>.<MAC>`, single-purpose, signed. */
export function stopUrl(appUrl: string, secret: Buffer, mandateId: string): string {
  return `${appUrl}/stop/${stopToken(secret, mandateId)}`;
}

/**
 * What every mail that reports an agent's action ends with: the stop link (its token is among the
 * mail's secrets, so the outbox never stores it in the clear).
 */
export function stopSection(appUrl: string, secret: Buffer, mandateId: string): { lines: string[]; secret: string } {
  return {
    lines: ['', t('mail.stop.link', { url: stopUrl(appUrl, secret, mandateId) }), t('mail.stop.noSignIn')],
    secret: stopToken(secret, mandateId),
  };
}

/** What a stop link shows: the mandate, its key and its principal; 404 for a forged link. */
export async function resolveStopLink(
  deps: { db: Db; secret: Buffer },
  token: string,
): Promise<{ mandate: Mandate; key: ApiKey; principal: Principal }> {
  const id = idFromToken(deps.secret, STOP_PURPOSE, token, /^mdt_[0-9A-Za-z]{20}$/);
  const mandate = id ? await Mandate.query(deps.db).findById(id) : undefined;
  if (!mandate) throw errors.notFound(t('errors.mandates.stop_link_not_valid'));
  const [key, principal] = await Promise.all([
    ApiKey.query(deps.db).findById(mandate.api_key_id),
    Principal.query(deps.db).findById(mandate.principal_id),
  ]);
  return { mandate, key: key!, principal: principal! };
}

/**
 * The stop itself, from the link's page (a POST, so a link scanner's GET stops nothing): the mandate,
 * or the key with every mandate it holds. The link expires with its mandate: once that has expired it
 * stops nothing (410). Revoking what is already revoked changes nothing.
 */
export async function stopAgent(deps: { db: Db; secret: Buffer }, token: string, what: 'mandate' | 'key', actor: Actor): Promise<Stopped> {
  const { mandate, key } = await resolveStopLink(deps, token);
  if (mandate.status === 'active' && !mandate.isInForce()) throw errors.expired(t('errors.mandates.link_expired_mandate_revoke_key'));
  return deps.db.transaction(async (trx) => {
    if (what === 'key') return revokeKeyIn(trx, key.id, actor, 'stop-link');
    return { mandates: [await revokeMandateIn(trx, mandate.id, actor, 'stop-link')] };
  });
}

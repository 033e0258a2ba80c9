import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import {
  ApiKey,
  type ConfirmationLevel,
  Mandate,
  type MandateMode,
  type MandatePolicy,
  type MandateState,
  type Principal,
  Tenant,
} from '../../db/models';
import type { CodeLimits } from '../../lib/code-limits';
import { codeClient } from '../../lib/code-limits';
import type { FlagName, FlagSnapshot } from '../../lib/config/flags';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { newId } from '../../lib/ids';
import type { Mailer } from '../../lib/mail';
import { page } from '../../lib/paging';
import { SIGN_SCOPE } from '../accounts/accounts';
import { authorize } from '../accounts/authorize';
import { revokeMandateIn, stopSection } from '../accounts/stop';
import { type Actor, recordAudit } from '../audit/audit';
import { grantCodeMail, lockedWhat } from '../codes/mails';
import { issueCode, LONG_CODE_DIGITS, useCodeLink, verifyCode } from '../codes/one-time-codes';
import { sendNow } from '../mail/send';
import { type CredentialDeps, issueCredential } from './credentials';
import { checkPolicy } from './policy';

/** The clickwrap a principal accepts to grant a mandate (SPEC: `mandate-consent-v2`). */
export const CONSENT_VERSION = 'mandate-consent-v2';
export const CONSENT_TEXT = [
  'I authorize the API key named below to apply my stored signature appearance to documents on my behalf, within this mandate only:',
  'its confirmation level (L1: I confirm every signature in this app; L2: it signs within policy and I am notified by e-mail each time), its mode (documents I sent, documents sent to me, or both) and its expiry.',
  'A mandate is a standing authorization, not a signature: the key never becomes a party to any document, and the completion certificate names me as the signer, marked "Signer (via authorized agent)" with this mandate\'s id.',
  'No silent or corporate automatic signing beyond L2 is granted. At most 25 L2 signatures are applied per UTC day.',
  'I can revoke this mandate at any time in this app; revoking stops further signatures at once and does not undo documents already completed.',
].join(' ');

export { DAILY_L2_CAP } from './limits';

/** The feature flag each confirmation level needs, wherever it is granted or used. */
export const LEVEL_FLAG: Record<ConfirmationLevel, FlagName> = { L1: 'l1_signing', L2: 'l2_signing' };

export interface GrantInput {
  apiKeyId: string;
  name: string;
  level: ConfirmationLevel;
  mode: MandateMode;
  expiresAt?: Date;
  /** The constraints its L2 applies keep to (policy.ts checkPolicy checks and normalises them). */
  policy?: MandatePolicy;
  consentAccepted: boolean;
}

export interface MandateDeps extends CredentialDeps {
  db: Db;
  secret: Buffer;
  mailer: Mailer;
  codeLimits: CodeLimits;
  flags: FlagSnapshot;
  codeTtlMs: number;
  /** SVC_APP_URL: the grant mail's stop link points there. */
  appUrl: string;
}

/** The mandate's state at `now` (Mandate.statusAt: the one rule, also behind isInForce). */
export function mandateStatus(mandate: Mandate, now = new Date()): MandateState {
  return mandate.statusAt(now);
}

async function ownKey(db: Db | Knex.Transaction, principal: Principal, apiKeyId: string): Promise<ApiKey> {
  const key = await ApiKey.query(db).findById(apiKeyId).where({ principal_id: principal.id }).whereNull('revoked_at');
  if (!key) throw errors.notFound(t('errors.mandates.no_such_api_key_yours'));
  return key;
}

/**
 * Step one of a grant: the principal chose the key, level, mode and expiry and accepted the
 * clickwrap. The mandate waits (status pending) for the code e-mailed now; only then is it active.
 */
export async function startGrant(
  deps: MandateDeps,
  principal: Principal,
  input: GrantInput,
  actor: Actor,
  sessionId?: string,
): Promise<Mandate> {
  if (!input.consentAccepted)
    throw errors.invalidRequest(t('errors.mandates.accept_mandate_terms_continue'), [{ path: 'consent', message: 'required' }]);
  authorize(null, { flag: LEVEL_FLAG[input.level] }, deps.flags);
  if (input.expiresAt && input.expiresAt.getTime() <= Date.now()) {
    throw errors.invalidRequest(t('errors.mandates.expiry_must_future'), [{ path: 'expires_at', message: 'in the past' }]);
  }
  const policy = checkPolicy(input.policy);
  const tenant = (await Tenant.query(deps.db).findById(principal.tenant_id))!;
  authorize({ tenant }, { plan: 'signing' });
  const key = await ownKey(deps.db, principal, input.apiKeyId);
  const mandate = await deps.db.transaction(async (trx) => {
    const created = await Mandate.query(trx).insertAndFetch({
      id: newId('mdt'),
      tenant_id: principal.tenant_id,
      principal_id: principal.id,
      api_key_id: key.id,
      name: input.name.trim(),
      confirmation_level: input.level,
      mode: input.mode,
      expires_at: input.expiresAt ?? null,
      policy: policy ?? null,
      status: 'pending',
      consent_version: CONSENT_VERSION,
      consent_accepted_at: new Date(),
      consent_ip: actor.ip ?? null,
    });
    await recordAudit(trx, {
      tenantId: principal.tenant_id,
      actor,
      action: 'mandate.consent_accepted',
      data: {
        mandate_id: created.id,
        api_key_id: key.id,
        level: input.level,
        mode: input.mode,
        expires_at: input.expiresAt?.toISOString() ?? null,
        ...(policy ? { policy } : {}),
        consent_version: CONSENT_VERSION,
      },
    });
    return created;
  });
  await sendGrantCode(deps, principal, mandate, { key, sessionId });
  return mandate;
}

/**
 * E-mails the grant's code, and with the app session that asked (`sessionId`) a one-use confirmation
 * link that works only in that session: it still confirms once wrong codes have spent the principal's budget.
 */
export async function sendGrantCode(
  deps: MandateDeps,
  principal: Principal,
  mandate: Mandate,
  options: { key?: ApiKey; sessionId?: string } = {},
): Promise<void> {
  const apiKey = options.key ?? (await ApiKey.query(deps.db).findById(mandate.api_key_id))!;
  // Only the principal's session reaches this: the code is checked as the mandate's newest, with no challenge.
  const { code, link } = await issueCode(deps, {
    purpose: 'mandate-grant',
    subject: mandate.id,
    client: 'session',
    ttlMs: deps.codeTtlMs,
    digits: LONG_CODE_DIGITS,
    binding: options.sessionId,
  });
  const stop = stopSection(deps.appUrl, deps.secret, mandate.id);
  await sendNow(deps, {
    to: principal.email,
    ...grantCodeMail({
      code,
      level: mandate.confirmation_level,
      mandateName: mandate.name,
      keyLabel: apiKey.label,
      keyPrefix: apiKey.prefix,
      ...(link ? { linkUrl: `${deps.appUrl}/mandates/${mandate.id}/confirm?link=${encodeURIComponent(link)}` } : {}),
      stopLines: stop.lines,
    }),
    purpose: 'mandate-code',
    tenantId: principal.tenant_id,
    secrets: [code, stop.secret, ...(link ? [link] : [])],
  });
}

/** How a grant is confirmed: the e-mailed code, or the mail's one-use link opened in the session that asked for it. */
export type GrantConfirmation = { code: string } | { link: string; sessionId: string | undefined };

/**
 * Step two: the e-mailed code makes the mandate active, attaches `documents:sign` to the key and
 * issues the mandate's credential (credentials.ts), all in one transaction.
 */
export async function confirmGrant(
  deps: MandateDeps,
  principal: Principal,
  mandateId: string,
  confirmation: string | GrantConfirmation,
  actor: Actor,
): Promise<Mandate> {
  const confirm = typeof confirmation === 'string' ? { code: confirmation } : confirmation;
  const mandate = await Mandate.query(deps.db).findById(mandateId).where({ principal_id: principal.id });
  if (!mandate) throw errors.notFound(t('errors.mandates.no_such_mandate'));
  if (mandate.status !== 'pending') throw errors.invalidState(t('errors.mandates.mandate_already', { status: mandateStatus(mandate) }));
  if ('link' in confirm) {
    const subject = await useCodeLink(deps.db, deps.secret, {
      purpose: 'mandate-grant',
      subject: mandate.id,
      link: confirm.link,
      binding: confirm.sessionId,
    });
    if (subject !== mandate.id) {
      throw errors.invalidRequest(t('errors.mandates.confirmation_link_does_not_work'));
    }
  } else {
    await verifyCode(deps, {
      purpose: 'mandate-grant',
      subject: mandate.id,
      code: confirm.code,
      latest: true,
      client: codeClient(actor.ip),
      owner: { email: principal.email, tenantId: principal.tenant_id, what: lockedWhat.grant(mandate.name) },
      // A stolen session can start many grants: their wrong codes share the principal's one budget.
      budget: principal.id,
    });
  }
  return deps.db.transaction(async (trx) => {
    // Under the row lock a revoke (which takes it too) either committed before, and wins, or waits for this grant.
    const current = (await Mandate.query(trx).findById(mandate.id).forUpdate())!;
    if (current.status !== 'pending') throw errors.invalidState(t('errors.mandates.mandate_already', { status: mandateStatus(current) }));
    const activated = await current
      .$query(trx)
      .patchAndFetch({ status: 'active', confirmed_at: new Date(), confirmed_ip: actor.ip ?? null });
    const active = await issueCredential(deps, trx, activated, principal);
    const key = (await ApiKey.query(trx).findById(mandate.api_key_id).forUpdate())!;
    if (!key.scopes.includes(SIGN_SCOPE)) await key.$query(trx).patch({ scopes: [...key.scopes, SIGN_SCOPE] });
    await recordAudit(trx, {
      tenantId: principal.tenant_id,
      actor,
      action: 'mandate.granted',
      data: {
        mandate_id: mandate.id,
        api_key_id: mandate.api_key_id,
        level: mandate.confirmation_level,
        mode: mandate.mode,
        expires_at: mandate.expires_at?.toISOString() ?? null,
        ...(mandate.policy ? { policy: mandate.policy } : {}),
        consent_version: mandate.consent_version,
        consent_accepted_at: mandate.consent_accepted_at.toISOString(),
        credential_id: active.credential_id,
        confirmed_with: 'link' in confirm ? 'link' : 'code',
      },
    });
    return active;
  });
}

/**
 * Revoking stops the mandate at once. `documents:sign` leaves the key with its last active mandate.
 * Nothing already signed is touched (SPEC Guarantee 5).
 */
export async function revokeMandate(db: Db, principal: Principal, mandateId: string, actor: Actor): Promise<Mandate> {
  const mandate = await Mandate.query(db).findById(mandateId).where({ principal_id: principal.id });
  if (!mandate) throw errors.notFound(t('errors.mandates.no_such_mandate'));
  return db.transaction((trx) => revokeMandateIn(trx, mandate.id, actor, 'app'));
}

/** Every mandate of the principal, pending ones included (the app shows them to finish or drop). */
export async function mandatesOfPrincipal(db: Db, principalId: string): Promise<Mandate[]> {
  return Mandate.query(db).where({ principal_id: principalId }).orderBy('created_at', 'desc').orderBy('id', 'desc');
}

/** One page of the mandates granted to a key (pending ones are not yet granted), newest first. */
export async function mandatesOfKey(db: Db, apiKeyId: string, list: { limit: number; cursor?: string }) {
  return page(Mandate.query(db).where('mandates.api_key_id', apiKeyId).whereNot('mandates.status', 'pending'), {
    ...list,
    table: 'mandates',
  });
}

/** One mandate granted to the key; 404 for any other (another key's, another tenant's, a pending one). */
export async function mandateOfKey(db: Db, apiKeyId: string, id: string): Promise<Mandate> {
  const mandate = await Mandate.query(db).findById(id).where({ api_key_id: apiKeyId }).whereNot('status', 'pending');
  if (!mandate) throw errors.notFound(t('errors.mandates.no_such_mandate_key'));
  return mandate;
}

export async function mandatesInForce(db: Db, apiKeyId: string, now = new Date()): Promise<Mandate[]> {
  return (await Mandate.query(db).where({ api_key_id: apiKeyId, status: 'active' }).orderBy('created_at', 'desc')).filter((mandate) =>
    mandate.isInForce(now),
  );
}

/** Confirmation levels a key may use: L1 with any mandate in force, L2 with an L2 one; each only with its flag on. */
export function allowedLevels(inForce: Mandate[], flags: FlagSnapshot): ConfirmationLevel[] {
  const levels: ConfirmationLevel[] = [];
  if (inForce.length > 0 && flags.l1_signing) levels.push('L1');
  if (inForce.some((mandate) => mandate.confirmation_level === 'L2') && flags.l2_signing) levels.push('L2');
  return levels;
}

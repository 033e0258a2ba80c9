import { randomInt } from 'node:crypto';
import type { Db } from '../../db/connect';
import { OneTimeCode } from '../../db/models';
import { CheckBudgetSpent, type CodeLimits } from '../../lib/code-limits';
import { errors, retryAfter, type ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { newId, randomBase62 } from '../../lib/ids';
import type { Mailer } from '../../lib/mail';
import { mac, verifyMac } from '../../lib/secrets/signed';
import { recordObservation } from '../audit/audit';
import { sendNow } from '../mail/send';
import { codeLockedMail } from './mails';

/** DESIGN: 6 digits (10 for sign-in and mandate grants), 10 minutes (an input), 5 tries, stored only as a keyed hash. */
export const CODE_ATTEMPTS = 5;
/**
 * Sign-in and mandate-grant codes are 10 digits: with their budget of checks per subject across all
 * addresses, guessing one within a month stays below one in a million (docs/security.md).
 */
export const LONG_CODE_DIGITS = 10;
/** At most this many codes per purpose, subject and client in one lifetime window, so a mailbox is not flooded. */
const CODES_PER_WINDOW = 5;

export type CodeCheck = 'ok' | 'invalid' | 'expired' | 'exhausted';

export interface CodeDeps {
  db: Db;
  secret: Buffer;
  codeLimits: CodeLimits;
}

/** What a code opens: `purpose` and `subject` name the codes together. */
export interface CodeSubject {
  purpose: string;
  subject: string;
}

/** Whom to tell when one client keeps entering wrong codes (none for an address without an account). */
export interface LockOwner {
  email: string;
  tenantId: string;
  /** What the codes are for, as the e-mail says it: "sign in to the app". */
  what: string;
}

/**
 * A code as it was sent: the code (mailed) and its challenge (kept by the page that asked for it). A
 * code is checked only together with its challenge, so nobody but the client that asked for it can
 * spend its tries: a stranger's wrong codes never touch the owner's.
 */
export interface IssuedCode {
  code: string;
  challenge: string;
  /** The one-use link token (mailed beside the code) when the code was bound to a browser or session. */
  link?: string;
}

function message(purpose: string, subject: string, code: string) {
  return `${purpose}:${subject}:${code}`;
}

/** The challenge of a code: its id, signed, so only the service can make one. */
export function challengeOf(secret: Buffer, codeId: string): string {
  return `${codeId}.${mac(secret, 'code-challenge', codeId)}`;
}

function codeIdOf(secret: Buffer, challenge: string | undefined): string | undefined {
  const [id, signature] = (challenge ?? '').split('.');
  return id && signature && /^otc_[0-9A-Za-z]{20}$/.test(id) && verifyMac(secret, 'code-challenge', id, signature) ? id : undefined;
}

/** The one answer to a refused code, for login, the sign page and the mandate grant alike. */
export function codeRefusal(result: Exclude<CodeCheck, 'ok'> | 'slowed' | 'spent', waitMs = 0): ServiceError {
  if (result === 'expired') return errors.expired(t('errors.codes.code_expired_ask_new_one'));
  if (result === 'exhausted') return errors.rateLimited(t('errors.codes.too_many_wrong_codes_ask'));
  if (result === 'slowed') {
    return errors.rateLimited(t('errors.codes.wrong_codes_from_address', { wait: waitWords(waitMs) }), undefined, retryAfter(waitMs));
  }
  if (result === 'spent') {
    return errors.rateLimited(t('errors.codes.wrong_codes_from_anywhere', { wait: waitWords(waitMs) }), undefined, retryAfter(waitMs));
  }
  return errors.invalidRequest(t('errors.codes.code_not_right'), [{ path: 'code', message: 'wrong code' }]);
}

function waitWords(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return seconds < 120 ? t('errors.codes.wait_seconds', { seconds }) : t('errors.codes.wait_minutes', { minutes: Math.ceil(seconds / 60) });
}

/**
 * A new code for the subject at this client's request: at most five per client in a code's
 * lifetime (the per-address limit bounds the rest). Asking never waits on another client's wrong codes.
 */
export async function issueCode(
  deps: CodeDeps,
  input: CodeSubject & { client: string; ttlMs: number; digits?: number; binding?: string; now?: Date },
): Promise<IssuedCode> {
  await deps.codeLimits.consumeIssue(input.purpose, input.subject, input.client, CODES_PER_WINDOW, input.ttlMs);
  const now = input.now ?? new Date();
  const code = randomDigits(input.digits ?? 6);
  const id = newId('otc');
  // The link's token is long and random; only its keyed hash and its binding's are kept.
  const token = input.binding === undefined ? undefined : randomBase62(43);
  await OneTimeCode.query(deps.db).insert({
    id,
    purpose: input.purpose,
    subject: input.subject,
    code_hash: mac(deps.secret, 'one-time-code', message(input.purpose, input.subject, code)),
    expires_at: new Date(now.getTime() + input.ttlMs),
    link_hash: token && mac(deps.secret, 'code-link', `${id}:${token}`),
    binding_hash: input.binding === undefined ? undefined : mac(deps.secret, 'code-binding', `${input.purpose}:${input.binding}`),
  });
  return { code, challenge: challengeOf(deps.secret, id), link: token && `${id}.${token}` };
}

function randomDigits(digits: number): string {
  let code = '';
  // randomInt takes ranges below 2^48: the digits are drawn in groups of up to six.
  for (let left = digits; left > 0; left -= 6) {
    const group = Math.min(6, left);
    code += String(randomInt(0, 10 ** group)).padStart(group, '0');
  }
  return code;
}

/**
 * Spends the one-use link of a code of this purpose (and subject, when given), opened where the code was asked for (`binding`
 * is the cookie's nonce or the session's id): the code's subject, or undefined for a link that is
 * malformed, forged, expired, used (its code too: link and code are one), or opened elsewhere.
 * Wrong codes and their budget never touch it.
 */
export async function useCodeLink(
  db: Db,
  secret: Buffer,
  input: { purpose: string; subject?: string; link: string; binding: string | undefined; now?: Date },
): Promise<string | undefined> {
  const now = input.now ?? new Date();
  const [id, token] = input.link.split('.');
  if (!id || !token || !/^otc_[0-9A-Za-z]{20}$/.test(id) || !input.binding) return undefined;
  const query = OneTimeCode.query(db).findById(id).where({ purpose: input.purpose });
  const issued = await (input.subject === undefined ? query : query.where({ subject: input.subject }));
  if (!issued?.link_hash || !issued.binding_hash || issued.consumed_at || issued.expires_at.getTime() <= now.getTime()) return undefined;
  if (!verifyMac(secret, 'code-link', `${id}:${token}`, issued.link_hash)) return undefined;
  if (!verifyMac(secret, 'code-binding', `${input.purpose}:${input.binding}`, issued.binding_hash)) return undefined;
  const consumed = await OneTimeCode.query(db).findById(id).whereNull('consumed_at').patch({ consumed_at: now });
  return consumed === 1 ? issued.subject : undefined;
}

/** A challenge that names no code: what a page gets when no code was sent (an address without an account). */
export function decoyChallenge(secret: Buffer): string {
  return challengeOf(secret, newId('otc'));
}

/**
 * Checks a code against the one its challenge names (of this purpose and subject), or with `latest`
 * the subject's newest one: only for codes a stranger cannot ask for (a mandate grant's, asked for
 * within the principal's session). Each wrong try counts on that code (atomically); after five it is
 * spent. A right code is consumed: it works once.
 */
export async function checkCode(
  db: Db,
  secret: Buffer,
  input: CodeSubject & { code: string; challenge?: string; latest?: boolean; now?: Date },
): Promise<CodeCheck> {
  const now = input.now ?? new Date();
  const subject = { purpose: input.purpose, subject: input.subject };
  const id = codeIdOf(secret, input.challenge);
  const issued = input.latest
    ? await OneTimeCode.query(db).where(subject).whereNull('consumed_at').orderBy('created_at', 'desc').first()
    : id && (await OneTimeCode.query(db).findById(id).where(subject));
  if (!issued || issued.consumed_at) return 'invalid';
  if (issued.expires_at.getTime() <= now.getTime()) return 'expired';
  if (issued.attempts >= CODE_ATTEMPTS) return 'exhausted';
  const typed = input.code.replace(/[\s-]/g, '');
  const candidate = /^\d{6,12}$/.test(typed) ? typed : '';
  if (candidate && verifyMac(secret, 'one-time-code', message(input.purpose, input.subject, candidate), issued.code_hash)) {
    const consumed = await OneTimeCode.query(db)
      .findById(issued.id)
      .whereNull('consumed_at')
      .where('attempts', '<', CODE_ATTEMPTS)
      .patch({ consumed_at: now });
    return consumed === 1 ? 'ok' : 'invalid';
  }
  await OneTimeCode.query(db).findById(issued.id).increment('attempts', 1);
  return issued.attempts + 1 >= CODE_ATTEMPTS ? 'exhausted' : 'invalid';
}

/**
 * Accepts the code with its challenge or throws its refusal. A client that keeps entering wrong
 * codes for a subject waits longer each time (its own wait, never anyone else's); when one client's
 * wrong codes reach the threshold, the subject's owner is told once. With `budget` (what the codes
 * open: an e-mail address, a principal) a wrong code also spends that budget, shared by every
 * address: past it no code is checked until its window ends, and the mailed link still works.
 */
export async function verifyCode(
  deps: CodeDeps & { mailer: Mailer },
  input: CodeSubject & { code: string; challenge?: string; latest?: boolean; client: string; owner?: LockOwner; budget?: string },
): Promise<void> {
  const waitMs = await deps.codeLimits.waitFor(input.purpose, input.subject, input.client);
  if (waitMs > 0) throw codeRefusal('slowed', waitMs);
  if (input.budget !== undefined) {
    try {
      await deps.codeLimits.takeCheck(input.purpose, input.budget);
    } catch (error) {
      if (error instanceof CheckBudgetSpent) throw codeRefusal('spent', error.msBeforeNext);
      throw error;
    }
  }
  const result = await checkCode(deps.db, deps.secret, input);
  if (result === 'ok') {
    if (input.budget !== undefined) await deps.codeLimits.giveBackCheck(input.purpose, input.budget);
    return;
  }
  if (result !== 'expired') {
    const { thresholdReached } = await deps.codeLimits.countWrong(input.purpose, input.subject, input.client);
    if (thresholdReached && input.owner) await tellOwner(deps, input, input.owner);
  }
  throw codeRefusal(result);
}

async function tellOwner(deps: CodeDeps & { mailer: Mailer }, input: CodeSubject & { client: string }, owner: LockOwner): Promise<void> {
  await recordObservation(deps.db, {
    tenantId: owner.tenantId,
    actor: { type: 'system' },
    action: 'code.locked',
    data: { purpose: input.purpose, subject: input.subject, client: input.client },
  });
  // The wait holds whether or not this mail gets out; a failed delivery is recorded by sendNow.
  await sendNow(deps, {
    to: owner.email,
    ...codeLockedMail({ what: owner.what, client: input.client }),
    purpose: 'code-locked',
    tenantId: owner.tenantId,
  }).catch(() => undefined);
}

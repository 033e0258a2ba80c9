import { randomInt } from 'node:crypto';
import type { Db } from '../../db/connect';
import { OneTimeCode } from '../../db/models';
import { type CodeLimits, retryAfter } from '../../lib/code-limits';
import { errors, type ServiceError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import type { Mailer } from '../../lib/mail';
import { mac, verifyMac } from '../../lib/secrets/signed';
import { recordObservation } from '../audit/audit';
import { sendNow } from '../mail/send';

/** DESIGN: 6 digits, 10 minutes (an input), 5 tries, stored only as a keyed hash. */
export const CODE_ATTEMPTS = 5;
/** At most this many codes per purpose and subject in one lifetime window, so a mailbox is not flooded. */
const CODES_PER_WINDOW = 5;

export type CodeCheck = 'ok' | 'invalid' | 'expired' | 'exhausted';

export interface CodeDeps {
  db: Db;
  secret: Buffer;
  codeLimits: CodeLimits;
}

/** What a code opens: `purpose` and `subject` name the codes and their wrong-code budget together. */
export interface CodeSubject {
  purpose: string;
  subject: string;
}

/** Whom to tell when the subject is locked (none for an address without an account). */
export interface LockOwner {
  email: string;
  tenantId: string;
  /** What the codes are for, as the lock e-mail says it: "sign in to the app". */
  what: string;
}

function message(purpose: string, subject: string, code: string) {
  return `${purpose}:${subject}:${code}`;
}

/** The one answer to a refused code, for login, the sign page and the mandate grant alike. */
export function codeRefusal(result: Exclude<CodeCheck, 'ok'> | 'locked', lockedMs = 0): ServiceError {
  if (result === 'expired') return errors.expired('The code has expired; ask for a new one.');
  if (result === 'exhausted') return errors.rateLimited('Too many wrong codes; ask for a new one.');
  if (result === 'locked') {
    return errors.rateLimited(
      'Too many wrong codes were entered, so no code is sent or accepted here for now; try again later.',
      undefined,
      retryAfter(lockedMs),
    );
  }
  return errors.invalidRequest('That code is not right.', [{ path: 'code', message: 'wrong code' }]);
}

/** Refuses (429) while the subject is locked: no code is sent or accepted then. */
export async function assertCodesOpen(deps: Pick<CodeDeps, 'codeLimits'>, input: CodeSubject): Promise<void> {
  const lockedMs = await deps.codeLimits.lockedFor(input.purpose, input.subject);
  if (lockedMs > 0) throw codeRefusal('locked', lockedMs);
}

/** A new code for the subject, unless it is locked or asked for too often. */
export async function issueCode(deps: CodeDeps, input: CodeSubject & { ttlMs: number; now?: Date }): Promise<string> {
  await assertCodesOpen(deps, input);
  const now = input.now ?? new Date();
  const recent = await OneTimeCode.query(deps.db)
    .where({ purpose: input.purpose, subject: input.subject })
    .where('created_at', '>', new Date(now.getTime() - input.ttlMs))
    .resultSize();
  if (recent >= CODES_PER_WINDOW) {
    throw errors.rateLimited('Too many codes were requested; wait a few minutes and try again.', undefined, retryAfter(input.ttlMs));
  }
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await OneTimeCode.query(deps.db).insert({
    id: newId('otc'),
    purpose: input.purpose,
    subject: input.subject,
    code_hash: mac(deps.secret, 'one-time-code', message(input.purpose, input.subject, code)),
    expires_at: new Date(now.getTime() + input.ttlMs),
  });
  return code;
}

/**
 * Checks a code against the newest one issued for the purpose and subject. Each wrong try counts
 * (atomically); after five the code is spent. A right code is consumed, so it works once.
 */
export async function checkCode(db: Db, secret: Buffer, input: CodeSubject & { code: string; now?: Date }): Promise<CodeCheck> {
  const now = input.now ?? new Date();
  const latest = await OneTimeCode.query(db)
    .where({ purpose: input.purpose, subject: input.subject })
    .whereNull('consumed_at')
    .orderBy('created_at', 'desc')
    .first();
  if (!latest) return 'invalid';
  if (latest.expires_at.getTime() <= now.getTime()) return 'expired';
  if (latest.attempts >= CODE_ATTEMPTS) return 'exhausted';
  const candidate = /^\d{6}$/.test(input.code.trim()) ? input.code.trim() : '';
  if (candidate && verifyMac(secret, 'one-time-code', message(input.purpose, input.subject, candidate), latest.code_hash)) {
    const consumed = await OneTimeCode.query(db)
      .findById(latest.id)
      .whereNull('consumed_at')
      .where('attempts', '<', CODE_ATTEMPTS)
      .patch({ consumed_at: now });
    return consumed === 1 ? 'ok' : 'invalid';
  }
  await OneTimeCode.query(db).findById(latest.id).increment('attempts', 1);
  return latest.attempts + 1 >= CODE_ATTEMPTS ? 'exhausted' : 'invalid';
}

/**
 * Accepts the subject's code or throws its refusal. Every refused code but an expired one spends the
 * subject's wrong-code budget, whatever code it was tried against, so asking for new codes buys no
 * new guesses; the code that uses the budget up locks the subject and its owner is told once.
 */
export async function verifyCode(
  deps: CodeDeps & { mailer: Mailer },
  input: CodeSubject & { code: string; owner?: LockOwner },
): Promise<void> {
  await assertCodesOpen(deps, input);
  const result = await checkCode(deps.db, deps.secret, input);
  if (result === 'ok') return;
  if (result !== 'expired') {
    const { lockedMs, lockedNow } = await deps.codeLimits.countWrong(input.purpose, input.subject);
    if (lockedNow && input.owner) await tellOwner(deps, input, input.owner, lockedMs);
    if (lockedMs > 0) throw codeRefusal('locked', lockedMs);
  }
  throw codeRefusal(result);
}

async function tellOwner(deps: CodeDeps & { mailer: Mailer }, input: CodeSubject, owner: LockOwner, lockedMs: number): Promise<void> {
  const until = new Date(Date.now() + lockedMs).toISOString().slice(0, 16).replace('T', ' ');
  await recordObservation(deps.db, {
    tenantId: owner.tenantId,
    actor: { type: 'system' },
    action: 'code.locked',
    data: { purpose: input.purpose, subject: input.subject, until },
  });
  // The lock holds whether or not this mail gets out; a failed delivery is recorded by sendNow.
  await sendNow(deps, {
    to: owner.email,
    subject: `Too many wrong codes: no code works until ${until} UTC`,
    text: [
      `Too many wrong codes were entered to ${owner.what}.`,
      '',
      `To protect you, no new code is sent and no code is accepted for this until ${until} UTC.`,
      'If this was you, wait until then and ask for a new code. If it was not, someone may be trying to get in: nothing was opened with a wrong code, and you need do nothing else.',
    ].join('\n'),
    purpose: 'code-locked',
    tenantId: owner.tenantId,
  }).catch(() => undefined);
}

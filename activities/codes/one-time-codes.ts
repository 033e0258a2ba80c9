import { randomInt } from 'node:crypto';
import type { Db } from '../../db/connect';
import { OneTimeCode } from '../../db/models';
import { ServiceError } from '../errors';
import { newId } from '../ids';
import { mac, verifyMac } from '../secrets/signed';

/** DESIGN: 6 digits, 10 minutes (an input), 5 tries, stored only as a keyed hash. */
export const CODE_ATTEMPTS = 5;
/** At most this many codes per purpose and subject in one lifetime window, so a mailbox is not flooded. */
const CODES_PER_WINDOW = 5;

export type CodeCheck = 'ok' | 'invalid' | 'expired' | 'exhausted';

function message(purpose: string, subject: string, code: string) {
  return `${purpose}:${subject}:${code}`;
}

export async function issueCode(db: Db, secret: Buffer, input: { purpose: string; subject: string; ttlMs: number; now?: Date }): Promise<string> {
  const now = input.now ?? new Date();
  const recent = await OneTimeCode.query(db)
    .where({ purpose: input.purpose, subject: input.subject })
    .where('created_at', '>', new Date(now.getTime() - input.ttlMs))
    .resultSize();
  if (recent >= CODES_PER_WINDOW) {
    throw new ServiceError('rate_limited', 'Too many codes were requested; wait a few minutes and try again.', undefined, {
      'Retry-After': String(Math.ceil(input.ttlMs / 1000)),
    });
  }
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await OneTimeCode.query(db).insert({
    id: newId('otc'),
    purpose: input.purpose,
    subject: input.subject,
    code_hash: mac(secret, 'one-time-code', message(input.purpose, input.subject, code)),
    expires_at: new Date(now.getTime() + input.ttlMs),
  });
  return code;
}

/**
 * Checks a code against the newest one issued for the purpose and subject. Each wrong try counts
 * (atomically); after five the code is spent. A right code is consumed, so it works once.
 */
export async function checkCode(db: Db, secret: Buffer, input: { purpose: string; subject: string; code: string; now?: Date }): Promise<CodeCheck> {
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
    const consumed = await OneTimeCode.query(db).findById(latest.id).whereNull('consumed_at').where('attempts', '<', CODE_ATTEMPTS).patch({ consumed_at: now });
    return consumed === 1 ? 'ok' : 'invalid';
  }
  await OneTimeCode.query(db).findById(latest.id).increment('attempts', 1);
  return latest.attempts + 1 >= CODE_ATTEMPTS ? 'exhausted' : 'invalid';
}

import { createHash } from 'node:crypto';
import type { Db } from '../../db/connect';
import { isDatabaseUnavailable } from '../../db/errors';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { decryptSecret, encryptSecret } from '../../lib/secrets/encrypt';

/** DESIGN: idempotency keys are kept 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;
const KEY = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencySettings {
  /** How long a retry waits for the first request with its key to answer before 409 idempotency_in_progress. */
  waitMs: number;
  /** A request still `running` after this long died with its process: a retry takes its key over. */
  staleMs: number;
}

/** What a request with an Idempotency-Key is to do: run (it holds the key now), or answer what the first one answered. */
export type Claim =
  | { kind: 'run' }
  | { kind: 'replay'; status: number; body: unknown /** A kept 202's: what it waits for. */; resume?: unknown };

/** The key of an Idempotency-Key header: printable ASCII, 1 to 255 characters (400 otherwise). */
export function idempotencyKey(header: string): string {
  if (!KEY.test(header))
    throw errors.invalidRequest(t('errors.http.idempotency_key_invalid'), [{ path: 'header.idempotency-key', message: 'invalid' }]);
  return header;
}

/**
 * A first answer is kept sealed under SVC_SECRET_KEY: some answers show a secret once (claim tokens,
 * webhook and inbox secrets, sign and confirm links), and the database must not hold one raw.
 */
const SEALED_PURPOSE = 'idempotent-answer';

function sealAnswer(secret: Buffer, body: unknown, resume?: unknown): string {
  // A 202 kept for resuming holds what it waits for beside its body, sealed together.
  if (resume !== undefined)
    return JSON.stringify({
      resumable: true,
      sealed: encryptSecret(secret, SEALED_PURPOSE, JSON.stringify({ body: body ?? null, resume })),
    });
  return JSON.stringify({ sealed: encryptSecret(secret, SEALED_PURPOSE, JSON.stringify(body ?? null)) });
}

/** A kept 202's body and what it waits for. */
function openResumable(secret: Buffer, stored: unknown): { body: unknown; resume: unknown } {
  return openAnswer(secret, stored) as { body: unknown; resume: unknown };
}

/** The first answer's body; rows written before answers were sealed hold it as is. */
function openAnswer(secret: Buffer, stored: unknown): unknown {
  const sealed = (stored as { sealed?: unknown } | null)?.sealed;
  if (typeof sealed !== 'string') return stored;
  try {
    return JSON.parse(decryptSecret(secret, SEALED_PURPOSE, sealed));
  } catch {
    // Sealed under a key no longer configured (SVC_SECRET_KEY rotated and its previous one dropped).
    throw errors.idempotencyMismatch(t('errors.http.first_answer_idempotency_key_can'));
  }
}

/** The request a key stands for: method, path, query and body (its raw bytes, or what describes a streamed one). */
export function fingerprint(parts: { method: string; path: string; query: string; body: Buffer | string }): string {
  return createHash('sha256').update(`${parts.method} ${parts.path}?${parts.query}\n`).update(parts.body).digest('hex');
}

interface Row {
  fingerprint: string;
  status: 'running' | 'done';
  response_status: number | null;
  response_body: unknown;
  created_at: Date;
}

/**
 * Takes the key for this request, or finds the first request's: with another fingerprint, 409
 * idempotency_mismatch; answered, its answer; still running, wait for it (up to `waitMs`, then 409
 * idempotency_in_progress). One conditional insert decides between concurrent requests, so one runs.
 */
export async function claimIdempotency(
  db: Db,
  secret: Buffer,
  settings: IdempotencySettings,
  apiKeyId: string,
  key: string,
  print: string,
): Promise<Claim> {
  const deadline = Date.now() + settings.waitMs;
  await db('idempotency_keys').where({ api_key_id: apiKeyId }).where('expires_at', '<', new Date()).delete();
  for (;;) {
    const inserted = await db('idempotency_keys')
      .insert({ api_key_id: apiKeyId, key, fingerprint: print, status: 'running', expires_at: new Date(Date.now() + IDEMPOTENCY_TTL_MS) })
      .onConflict(['api_key_id', 'key'])
      .ignore()
      .returning('key');
    if (inserted.length > 0) return { kind: 'run' };
    const row = (await db('idempotency_keys').where({ api_key_id: apiKeyId, key }).first()) as Row | undefined;
    if (!row) continue;
    if (row.fingerprint !== print) throw errors.idempotencyMismatch(t('errors.http.idempotency_key_used_another_request'));
    if (row.status === 'done') {
      if ((row.response_body as { resumable?: boolean } | null)?.resumable) {
        const { body, resume } = openResumable(secret, row.response_body);
        return { kind: 'replay', status: row.response_status!, body, resume };
      }
      return { kind: 'replay', status: row.response_status!, body: openAnswer(secret, row.response_body) };
    }
    const stale = new Date(Date.now() - settings.staleMs);
    const takenOver = await db('idempotency_keys')
      .where({ api_key_id: apiKeyId, key, status: 'running' })
      .where('created_at', '<', stale)
      .update({ created_at: new Date() });
    if (takenOver) return { kind: 'run' };
    if (Date.now() >= deadline)
      throw errors.idempotencyInProgress(t('errors.http.first_request_idempotency_key_still'), undefined, {
        'Retry-After': '1',
      });
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The request that held the key answered for good: a retry gets this status and body. */
export async function settleIdempotency(
  db: Db,
  secret: Buffer,
  apiKeyId: string,
  key: string,
  status: number,
  body: unknown,
  /** For a 202 its route can resume: what it waits for (RouteSpec.resume). */
  resume?: unknown,
): Promise<void> {
  await db('idempotency_keys')
    .where({ api_key_id: apiKeyId, key })
    .update({ status: 'done', response_status: status, response_body: sealAnswer(secret, body, resume) });
}

/** The request did not answer for good (a 5xx, 429, 202, or a crash of its handler): a retry runs it again. */
export async function releaseIdempotency(db: Db, apiKeyId: string, key: string): Promise<void> {
  await db('idempotency_keys').where({ api_key_id: apiKeyId, key, status: 'running' }).delete();
}

/** How often a settle or release the database did not take is tried again. */
const FINISH_RETRY_MS = 1000;

/**
 * Settles or releases a key (`write`) now; when the database cannot be reached, tries it again every
 * second in the background until it can, for at most half of `staleMs` (a retry takes a stale key
 * over anyway). A request that ends during an outage thus does not leave its key `running`, which
 * would answer every retry 409 idempotency_in_progress until the key went stale. Answers whether it
 * was written now.
 */
export async function finishIdempotency(write: () => Promise<void>, staleMs: number): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    const giveUpAt = Date.now() + staleMs / 2;
    const later = () =>
      setTimeout(() => {
        write().catch((failure) => {
          if (isDatabaseUnavailable(failure) && Date.now() < giveUpAt) later();
        });
      }, FINISH_RETRY_MS).unref();
    later();
    return false;
  }
}

/** Answers a retry may get again: a success, or a refusal that retrying cannot change (not 429, not 5xx), never 202. */
export function isFinalAnswer(status: number): boolean {
  return status !== 202 && status !== 429 && status < 500;
}

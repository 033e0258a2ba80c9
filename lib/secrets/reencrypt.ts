import type { Db } from '../../db/connect';
import { decryptSecret, encryptSecret, sealedWithCurrentKey } from './encrypt';

/**
 * Every column the service keeps encrypted under SVC_SECRET_KEY (lib/secrets/encrypt.ts), with the
 * purpose its key was derived for: the webhooks' signing secrets (activities/webhooks/webhooks.ts),
 * the contacts' inbox secrets (activities/contacts/inbox.ts), the receipt signing keys
 * (lib/receipts.ts) and queued mails until they are sent (lib/mail.ts).
 */
const SEALED = [
  { table: 'webhooks', id: 'id', column: 'secret_ciphertext', purpose: 'webhook-secret' },
  { table: 'webhooks', id: 'id', column: 'previous_secret_ciphertext', purpose: 'webhook-secret' },
  { table: 'contacts', id: 'id', column: 'inbox_secret_ciphertext', purpose: 'inbox-secret' },
  { table: 'receipt_keys', id: 'kid', column: 'private_ciphertext', purpose: 'receipt-key' },
  { table: 'mail_outbox', id: 'id', column: 'sealed', purpose: 'mail' },
] as const;

export interface ReencryptReport {
  /** Per `table.column`: moved to the current key, already under it, and readable by no configured key. */
  columns: Record<string, { reencrypted: number; current: number; unreadable: number }>;
  unreadable: number;
}

type Outcome = 'current' | 'reencrypted' | 'unreadable';

/** One sealed value under the current key: unchanged when it already is, undefined when no key opens it. */
function reseal(secret: Buffer, purpose: string, sealed: string): { outcome: Outcome; sealed?: string } {
  if (sealedWithCurrentKey(secret, purpose, sealed)) return { outcome: 'current', sealed };
  try {
    return { outcome: 'reencrypted', sealed: encryptSecret(secret, purpose, decryptSecret(secret, purpose, sealed)) };
  } catch {
    return { outcome: 'unreadable' };
  }
}

/**
 * JSON columns that hold sealed values inside them: an Idempotency-Key's first answer
 * (`{"sealed": …}`, api/http/idempotency.ts) and the links in an event's data (`sealed-link:…`
 * values, activities/events/outbox.ts).
 */
const SEALED_INSIDE = [
  {
    table: 'idempotency_keys',
    ids: ['api_key_id', 'key'],
    column: 'response_body',
    purpose: 'idempotent-answer',
    filter: (query: ReturnType<Db>) => query.whereRaw(`response_body ->> 'sealed' is not null`),
    reseal(secret: Buffer, value: unknown): { outcome: Outcome; value?: unknown } {
      const sealed = (value as { sealed?: unknown } | null)?.sealed;
      if (typeof sealed !== 'string') return { outcome: 'current', value };
      const result = reseal(secret, 'idempotent-answer', sealed);
      return { outcome: result.outcome, value: result.sealed === undefined ? undefined : { ...(value as object), sealed: result.sealed } };
    },
  },
  {
    table: 'events',
    ids: ['id'],
    column: 'data',
    purpose: 'event-link',
    filter: (query: ReturnType<Db>) => query.whereRaw(`data::text like '%sealed-link:%'`),
    reseal(secret: Buffer, value: unknown): { outcome: Outcome; value?: unknown } {
      let outcome: Outcome = 'current';
      const data = { ...(value as Record<string, unknown>) };
      for (const [name, field] of Object.entries(data)) {
        if (typeof field !== 'string' || !field.startsWith('sealed-link:')) continue;
        const result = reseal(secret, 'event-link', field.slice('sealed-link:'.length));
        if (result.outcome === 'unreadable') return { outcome };
        if (result.outcome === 'reencrypted') outcome = 'reencrypted';
        data[name] = `sealed-link:${result.sealed}`;
      }
      return { outcome, value: data };
    },
  },
] as const;

/**
 * After a rotation of SVC_SECRET_KEY (the old key in SVC_SECRET_KEY_PREVIOUS), seals every stored
 * secret again under the current key, so the previous key can be dropped. Idempotent; a row changed
 * meanwhile (a mail sent, a secret rotated) is left as the change made it.
 */
export async function reencryptSecrets(db: Db, secret: Buffer): Promise<ReencryptReport> {
  const report: ReencryptReport = { columns: {}, unreadable: 0 };
  const tally = (name: string, outcome: Outcome) => {
    report.columns[name] ??= { reencrypted: 0, current: 0, unreadable: 0 };
    report.columns[name][outcome] += 1;
    if (outcome === 'unreadable') report.unreadable += 1;
  };
  for (const { table, id, column, purpose } of SEALED) {
    report.columns[`${table}.${column}`] ??= { reencrypted: 0, current: 0, unreadable: 0 };
    const rows: Array<Record<string, string>> = await db(table).select(id, column).whereNotNull(column);
    for (const row of rows) {
      const sealed = row[column];
      const result = reseal(secret, purpose, sealed);
      if (result.outcome === 'reencrypted') {
        const updated = await db(table)
          .where({ [id]: row[id], [column]: sealed })
          .update({ [column]: result.sealed });
        if (updated === 0) continue;
      }
      tally(`${table}.${column}`, result.outcome);
    }
  }
  for (const { table, ids, column, filter, reseal: resealInside } of SEALED_INSIDE) {
    report.columns[`${table}.${column}`] ??= { reencrypted: 0, current: 0, unreadable: 0 };
    const rows: Array<Record<string, unknown>> = await filter(db(table).select(...ids, column));
    for (const row of rows) {
      const result = resealInside(secret, row[column]);
      if (result.outcome === 'reencrypted')
        await db(table)
          .where(Object.fromEntries(ids.map((name) => [name, row[name]])))
          .update({ [column]: JSON.stringify(result.value) });
      tally(`${table}.${column}`, result.outcome);
    }
  }
  return report;
}

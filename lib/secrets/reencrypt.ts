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

/**
 * After a rotation of SVC_SECRET_KEY (the old key in SVC_SECRET_KEY_PREVIOUS), seals every stored
 * secret again under the current key, so the previous key can be dropped. Idempotent; a row changed
 * meanwhile (a mail sent, a secret rotated) is left as the change made it.
 */
export async function reencryptSecrets(db: Db, secret: Buffer): Promise<ReencryptReport> {
  const report: ReencryptReport = { columns: {}, unreadable: 0 };
  for (const { table, id, column, purpose } of SEALED) {
    const counts = { reencrypted: 0, current: 0, unreadable: 0 };
    const rows: Array<Record<string, string>> = await db(table).select(id, column).whereNotNull(column);
    for (const row of rows) {
      const sealed = row[column];
      if (sealedWithCurrentKey(secret, purpose, sealed)) {
        counts.current += 1;
        continue;
      }
      let plaintext: string;
      try {
        plaintext = decryptSecret(secret, purpose, sealed);
      } catch {
        counts.unreadable += 1;
        continue;
      }
      const updated = await db(table)
        .where({ [id]: row[id], [column]: sealed })
        .update({ [column]: encryptSecret(secret, purpose, plaintext) });
      if (updated > 0) counts.reencrypted += 1;
    }
    report.columns[`${table}.${column}`] = counts;
    report.unreadable += counts.unreadable;
  }
  return report;
}

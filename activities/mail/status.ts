import type { Db } from '../../db/connect';
import { MailMessage } from '../../db/models';

/** Where a mail stands, as its sender may see it: the relay's reason only when it failed. */
export interface MailState {
  status: MailMessage['status'];
  error: string | null;
}

/** The state of each mail named by its dedupe key (one per invitation, notice or confirm link). */
export async function mailStates(db: Db, dedupeKeys: string[]): Promise<Map<string, MailState>> {
  if (dedupeKeys.length === 0) return new Map();
  const mails = await MailMessage.query(db).whereIn('dedupe_key', dedupeKeys).select('dedupe_key', 'status', 'error');
  return new Map(mails.map((mail) => [mail.dedupe_key!, { status: mail.status, error: mail.status === 'failed' ? mail.error : null }]));
}

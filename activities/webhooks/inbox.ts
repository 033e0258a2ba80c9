import type { Contact } from '../../db/models';
import { randomBase62 } from '../../lib/ids';
import { decryptSecret, encryptSecret } from '../../lib/secrets/encrypt';
import { resolveTarget } from './targets';

const PURPOSE = 'inbox-secret';

/**
 * A contact's inbox_url follows the webhook URL rules (https, public addresses only, checked again at
 * each delivery) and is signed like a webhook, with a secret of its own shown once.
 */
export async function newInbox(
  deps: { secret: Buffer; allowedHosts: readonly string[] },
  url: string,
): Promise<{ columns: Pick<Contact, 'inbox_url' | 'inbox_secret_ciphertext'>; secret: string }> {
  await resolveTarget(url, deps.allowedHosts);
  const secret = `whsec_${randomBase62(32)}`;
  return { columns: { inbox_url: url, inbox_secret_ciphertext: encryptSecret(deps.secret, PURPOSE, secret) }, secret };
}

/** The secret that signs deliveries to the contact's inbox. */
export function inboxSecret(contact: Contact, key: Buffer): string[] {
  return contact.inbox_secret_ciphertext ? [decryptSecret(key, PURPOSE, contact.inbox_secret_ciphertext)] : [];
}

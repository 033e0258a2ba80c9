import { acceptUrl } from '../../activities/contacts/contacts';
import type { MailState } from '../../activities/mail/status';
import type { Contact } from '../../db/models';
import type { ContactResponse } from './schema';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function presentContact(contact: Contact, links: { appUrl: string; secret: Buffer; mail?: MailState }): ContactResponse {
  return {
    contact_id: contact.id,
    pair_id: contact.pair_id,
    direction: contact.direction,
    counterparty_email: contact.counterparty_email,
    counterparty_name: contact.counterparty_name,
    status: contact.status,
    accept_url: contact.status === 'invited' ? acceptUrl(links.appUrl, links.secret, contact.pair_id) : null,
    inbox_url: contact.inbox_url,
    invitation: contact.direction === 'outbound' && links.mail ? { status: links.mail.status, error: links.mail.error } : null,
    created_at: contact.created_at.toISOString(),
    accepted_at: iso(contact.accepted_at),
    revoked_at: iso(contact.revoked_at),
    revoked_by: contact.revoked_by,
  };
}

// The tools that only read: the key, templates, documents, contacts, offers, the Drive, transfers, sign requests.
import { z } from 'zod';
import { Id, Page, READ, type ToolKit } from './kit';

export function readingTools({ tool, client }: ToolKit): void {
  tool('me', 'The calling key: its principal, plan, scopes, feature flags, mandate and the confirmation levels it may use.', {}, READ, () =>
    client.me(),
  );
  tool('list_templates', 'Document templates of the account (their roles and widgets).', Page, READ, (input) =>
    client.listTemplates(input),
  );
  tool(
    'list_documents',
    'Documents of the account (outbound) or documents where this key’s principal is a signer (inbound), newest first.',
    { ...Page, direction: z.enum(['outbound', 'inbound']).optional() },
    READ,
    (input) => client.listDocuments(input),
  );
  tool(
    'get_document',
    'One document: its status, signers, who has signed, sign links (outbound) and hashes.',
    { document_id: Id('doc_…') },
    READ,
    (input) => client.getDocument(input.document_id),
  );
  tool('list_contacts', 'Agent contacts of this principal (invitations both ways, active, revoked).', Page, READ, (input) =>
    client.listContacts(input),
  );
  tool(
    'list_offers',
    'Offers made to (inbound) or by (outbound) this principal.',
    {
      ...Page,
      direction: z.enum(['inbound', 'outbound']).optional(),
      status: z.enum(['pending', 'acknowledged', 'declined', 'accepted', 'escalated', 'expired']).optional(),
    },
    READ,
    (input) => client.listOffers(input),
  );
  tool(
    'get_offer',
    'One offer (either party), with its receipt once accepted and its confirm_url while escalated.',
    { offer_id: Id('ofr_…') },
    READ,
    (input) => client.getOffer(input.offer_id),
  );
  tool('list_drive', 'Files in this principal’s Drive (name, kind, size, SHA-256).', Page, READ, (input) => client.listDrive(input));
  tool(
    'list_transfers',
    'File packages this principal sent or received.',
    { ...Page, direction: z.enum(['sent', 'received']).optional() },
    READ,
    (input) => client.listTransfers(input),
  );
  tool(
    'get_transfer',
    'One package: mode, state, can_release, files, recipients (never claim tokens).',
    { transfer_id: Id('xfr_…') },
    READ,
    (input) => client.getTransfer(input.transfer_id),
  );
  tool(
    'list_sign_requests',
    'This key’s L1 sign requests on a document, newest first, with their status (open, applied, declined, expired, failed).',
    { document_id: Id('doc_…'), ...Page },
    READ,
    ({ document_id, ...page }) => client.listSignRequests(document_id, page),
  );
}

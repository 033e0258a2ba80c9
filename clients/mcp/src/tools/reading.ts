import { inputOf, READ, type ToolKit } from './kit';

export function readingTools({ tool, client }: ToolKit): void {
  tool('me', 'The calling key: its principal, plan, scopes, feature flags, mandate and the confirmation levels it may use.', {}, READ, () =>
    client.me(),
  );
  tool('list_templates', 'Document templates of the account (their roles and widgets).', inputOf('listTemplates'), READ, (input) =>
    client.listTemplates(input),
  );
  tool(
    'list_documents',
    'Documents of the account (outbound) or documents where this key’s principal is a signer (inbound), newest first.',
    inputOf('listDocuments'),
    READ,
    (input) => client.listDocuments(input),
  );
  tool(
    'get_document',
    'One document: its status, signers, who has signed, sign links (outbound) and hashes.',
    inputOf('getDocument', { path: { id: 'document_id' }, describe: { document_id: 'doc_…' } }),
    READ,
    (input) => client.getDocument(input.document_id),
  );
  tool(
    'list_contacts',
    'Agent contacts of this principal (invitations both ways, active, revoked).',
    inputOf('listContacts'),
    READ,
    (input) => client.listContacts(input),
  );
  tool('list_offers', 'Offers made to (inbound) or by (outbound) this principal.', inputOf('listOffers'), READ, (input) =>
    client.listOffers(input),
  );
  tool(
    'get_offer',
    'One offer (either party), with its receipt once accepted and its confirm_url while escalated.',
    inputOf('getOffer', { path: { id: 'offer_id' }, describe: { offer_id: 'ofr_…' } }),
    READ,
    (input) => client.getOffer(input.offer_id),
  );
  tool('list_drive', 'Files in this principal’s Drive (name, kind, size, SHA-256).', inputOf('listDrive'), READ, (input) =>
    client.listDrive(input),
  );
  tool('list_transfers', 'File packages this principal sent or received.', inputOf('listTransfers'), READ, (input) =>
    client.listTransfers(input),
  );
  tool(
    'get_transfer',
    'One package: mode, state, can_release, files, recipients (never claim tokens).',
    inputOf('getTransfer', { path: { id: 'transfer_id' }, describe: { transfer_id: 'xfr_…' } }),
    READ,
    (input) => client.getTransfer(input.transfer_id),
  );
  tool(
    'get_document_audit',
    'The audit trail of a document (owned, or where this key’s principal signs), oldest first and paged: each step (created, sent, mail.sent, viewed, sign.email_verified, signed, declined, completed …) with its actor (kind, id, name), the principal and mandate behind it, and the IP and user agent of browser steps.',
    inputOf('getDocumentAudit', { path: { id: 'document_id' }, describe: { document_id: 'doc_…' } }),
    READ,
    ({ document_id, ...page }) => client.getDocumentAudit(document_id, page),
  );
  tool(
    'list_sign_requests',
    'This key’s L1 sign requests on a document, newest first, with their status (open, applied, declined, expired, failed).',
    inputOf('listSignRequests', { path: { id: 'document_id' }, describe: { document_id: 'doc_…' } }),
    READ,
    ({ document_id, ...page }) => client.listSignRequests(document_id, page),
  );
}

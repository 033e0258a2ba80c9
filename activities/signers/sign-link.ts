import type { Db } from '../../db/connect';
import { Document, DocumentSigner, Principal, Tenant } from '../../db/models';
import type { CodeLimits } from '../../lib/code-limits';
import { codeClient } from '../../lib/code-limits';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import type { Mailer } from '../../lib/mail';
import { type Actor, recordObservation } from '../audit/audit';
import { codeMinutes, lockedWhat, signCodeMail } from '../codes/mails';
import { issueCode, verifyCode } from '../codes/one-time-codes';
import { signerIdFromToken } from '../documents/links';
import { sendNow } from '../mail/send';

/** A sign link resolved: its signer, their document, and every signer of it in order. */
export interface SignerView {
  signer: DocumentSigner;
  document: Document;
  signers: DocumentSigner[];
}

/** Where a request at a sign link came from; the signer is the actor of what it records. */
export interface SignerClient {
  ip?: string;
  userAgent?: string;
}

export interface SignCodeDeps {
  db: Db;
  secret: Buffer;
  mailer: Mailer;
  codeLimits: CodeLimits;
  codeTtlMs: number;
}

export function signerActor(signer: DocumentSigner, client: SignerClient): Actor {
  return { type: 'signer', id: signer.id, ip: client.ip, userAgent: client.userAgent };
}

/** Whoever holds the link sees the address only masked: the code goes to it, they need not learn it. */
export function maskEmail(email: string): string {
  const [local, domain] = email.split('@');
  return `${local.slice(0, 1)}${'•'.repeat(Math.max(1, Math.min(6, local.length - 1)))}@${domain}`;
}

/** The signer a link names; 404 for a forged link or a document not sent yet. */
export async function resolveSignLink(deps: { db: Db; secret: Buffer }, token: string): Promise<SignerView> {
  const signerId = signerIdFromToken(deps.secret, token);
  // Two statements: every signer of the link's document (in signing order, the link's own among
  // them), then the document. The apply a sign-page request records is checked on these rows.
  const signers = signerId
    ? await DocumentSigner.query(deps.db)
        .whereIn('document_id', DocumentSigner.query(deps.db).select('document_id').where('id', signerId))
        .orderBy('position')
    : [];
  const signer = signers.find((each) => each.id === signerId);
  const document = signer ? await Document.query(deps.db).findById(signer.document_id) : undefined;
  if (!signer || !document || document.status === 'draft') throw errors.notFound(t('errors.signers.sign_link_not_valid'));
  return { signer, document, signers };
}

/** Who sent a document, as its sign page names them: the owner principal and their tenant (a tenant may have no name). */
export interface DocumentSender {
  name: string;
  tenantName: string | null;
}

export async function senderOf(db: Db, document: Document): Promise<DocumentSender> {
  const [principal, tenant] = await Promise.all([
    Principal.query(db).findById(document.owner_principal_id),
    Tenant.query(db).findById(document.tenant_id),
  ]);
  return { name: principal?.name ?? 'Unknown sender', tenantName: tenant?.name?.trim() || null };
}

/**
 * E-mails the signer a code that opens the link. Reading or signing needs it, so whoever else holds
 * the link (the sending agent among them) cannot sign with it.
 */
export async function requestSignCode(
  deps: SignCodeDeps,
  view: SignerView,
  client: SignerClient,
): Promise<{ sentTo: string; challenge: string }> {
  const { signer, document } = view;
  const { code, challenge } = await issueCode(deps, {
    purpose: 'sign',
    subject: signer.id,
    client: codeClient(client.ip),
    ttlMs: deps.codeTtlMs,
  });
  await sendNow(deps, {
    to: signer.email,
    ...signCodeMail({ code, minutes: codeMinutes(deps.codeTtlMs), documentName: document.name }),
    purpose: 'sign-code',
    tenantId: document.tenant_id,
    secrets: [code],
  });
  await recordObservation(deps.db, {
    tenantId: document.tenant_id,
    documentId: document.id,
    actor: signerActor(signer, client),
    action: 'sign.code_sent',
    data: { signer_id: signer.id },
  });
  return { sentTo: maskEmail(signer.email), challenge };
}

/** Accepts the signer's code (or throws its refusal); the caller then opens a session bound to the signer. */
export async function verifySignCode(
  deps: SignCodeDeps,
  view: SignerView,
  input: { code: string; challenge?: string },
  client: SignerClient,
): Promise<void> {
  const { signer, document } = view;
  await verifyCode(deps, {
    purpose: 'sign',
    subject: signer.id,
    code: input.code,
    challenge: input.challenge,
    client: codeClient(client.ip),
    owner: { email: signer.email, tenantId: document.tenant_id, what: lockedWhat.signLink(document.name) },
  });
  await recordObservation(deps.db, {
    tenantId: document.tenant_id,
    documentId: document.id,
    actor: signerActor(signer, client),
    action: 'sign.email_verified',
    data: { signer_id: signer.id, email: signer.email },
  });
}

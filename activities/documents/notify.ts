import type { Db } from '../../db/connect';
import { ApiKey, Apply, Document, DocumentSigner, Mandate, Principal } from '../../db/models';
import { stopSection } from '../accounts/stop';
import { type MailQueueDeps, queueMail } from '../mail/queue';
import { policyWords } from '../mandates/policy';
import { documentDownloadUrl, signerToken, signUrl } from './links';
import { appliedMail, completedMail, principalRejectedMail, rejectionReason, signerRejectedMail } from './mails';

/**
 * SPEC apply step 9: after an L2 apply the principal is told by e-mail what was signed, by which
 * key, under which mandate. L1 applies were confirmed by the principal, so they get no mail.
 */
export async function notifyPrincipalOfApply(deps: MailQueueDeps & { db: Db; secret: Buffer }, applyId: string): Promise<boolean> {
  const apply = await Apply.query(deps.db).findById(applyId);
  if (apply?.status !== 'applied' || apply.kind !== 'mandate' || apply.confirmation_level !== 'l2') return false;
  const [document, mandate, key] = await Promise.all([
    Document.query(deps.db).findById(apply.document_id),
    Mandate.query(deps.db).findById(apply.mandate_id!),
    ApiKey.query(deps.db).findById(apply.api_key_id!),
  ]);
  const principal = (await Principal.query(deps.db).findById(mandate!.principal_id))!;
  const stop = stopSection(deps.config.appUrl, deps.secret, mandate!.id);
  await queueMail(deps, {
    to: principal.email,
    ...appliedMail({
      principalName: principal.name,
      mandateName: mandate!.name,
      mandateId: mandate!.id,
      keyLabel: key!.label,
      keyPrefix: key!.prefix,
      documentName: document!.name,
      documentId: document!.id,
      appliedAt: apply.applied_at!,
      reason: apply.input.reason,
      hashBefore: apply.pre_sign_hash,
      hashAfter: apply.document_hash,
      ...(mandate!.policy ? { policyLines: policyWords(mandate!.policy) } : {}),
      stopLines: stop.lines,
    }),
    purpose: 'l2-notice',
    tenantId: principal.tenant_id,
    secrets: [stop.secret],
    dedupeKey: `l2-notice:${apply.id}`,
    documentId: apply.document_id,
  });
  return true;
}

/**
 * A rejected apply is never silent: a principal whose L1 or L2 apply failed is e-mailed why and
 * that nothing was signed; a browser signer is e-mailed why, with their link to sign again. (The
 * sender's agent hears of it by the event `document.sign_failed`, written with the rejection.)
 */
export async function notifyRejectedApply(deps: MailQueueDeps & { db: Db; secret: Buffer }, applyId: string): Promise<boolean> {
  const apply = await Apply.query(deps.db).findById(applyId);
  if (apply?.status !== 'rejected') return false;
  const [document, signer] = await Promise.all([
    Document.query(deps.db).findById(apply.document_id),
    DocumentSigner.query(deps.db).findById(apply.signer_id),
  ]);
  const why = rejectionReason(apply.error_message, apply.error_code);
  if (apply.mandate_id) {
    const mandate = (await Mandate.query(deps.db).findById(apply.mandate_id))!;
    const principal = (await Principal.query(deps.db).findById(mandate.principal_id))!;
    const level = (apply.confirmation_level ?? 'l2').toUpperCase();
    const stop = stopSection(deps.config.appUrl, deps.secret, mandate.id);
    await queueMail(deps, {
      to: principal.email,
      ...principalRejectedMail({
        principalName: principal.name,
        documentName: document!.name,
        documentId: document!.id,
        level,
        mandateName: mandate.name,
        mandateId: mandate.id,
        why,
        stopLines: stop.lines,
      }),
      purpose: 'apply-rejected',
      tenantId: principal.tenant_id,
      secrets: [stop.secret],
      dedupeKey: `apply-rejected:${apply.id}`,
      documentId: apply.document_id,
    });
    return true;
  }
  await queueMail(deps, {
    to: signer!.email,
    ...signerRejectedMail({
      signerName: signer!.name,
      documentName: document!.name,
      why,
      signUrl: signUrl(deps.config.appUrl, deps.secret, signer!.id),
    }),
    purpose: 'apply-rejected',
    tenantId: document!.tenant_id,
    secrets: [signerToken(deps.secret, signer!.id)],
    dedupeKey: `apply-rejected:${apply.id}`,
    documentId: apply.document_id,
    signerId: signer!.id,
  });
  return true;
}

/**
 * Completion reaches everyone: each signer and the sender's principal get the completed PDF (its
 * last page the certificate of completion) by a signed link that lasts SVC_COMPLETION_LINK_TTL_MS;
 * signers can fetch it again from their sign link for SVC_COMPLETED_COPY_TTL_MS. Once per address.
 */
export async function mailCompletedCopies(deps: MailQueueDeps & { db: Db; secret: Buffer }, documentId: string): Promise<number> {
  const document = await Document.query(deps.db).findById(documentId);
  if (document?.status !== 'completed' || !document.completed_at) return 0;
  const [owner, signers] = await Promise.all([
    Principal.query(deps.db).findById(document.owner_principal_id),
    DocumentSigner.query(deps.db).where({ document_id: documentId }).orderBy('position'),
  ]);
  const { durations } = deps.config;
  const link = documentDownloadUrl(deps.config.publicUrl, deps.secret, {
    documentId,
    sha256: document.current_sha256,
    ttlMs: durations.completionLinkMs,
  });
  const copyUntil = new Date(document.completed_at.getTime() + durations.completedCopyMs);
  const who = signers.map((signer) => ({ name: signer.signed_name ?? signer.name, email: signer.signed_email ?? signer.email }));
  const recipients = new Map<string, { name: string; signer?: DocumentSigner }>();
  for (const signer of signers) recipients.set(signer.email.toLowerCase(), { name: signer.name, signer });
  if (owner && !recipients.has(owner.email.toLowerCase())) recipients.set(owner.email.toLowerCase(), { name: owner.name });
  for (const [email, { name, signer }] of recipients) {
    await queueMail(deps, {
      to: email,
      ...completedMail({
        name,
        documentName: document.name,
        documentId: document.id,
        completedAt: document.completed_at,
        signers: who,
        link: { url: link.url, expiresAt: link.expires_at },
        sha256: document.current_sha256,
        ...(signer ? { signLink: { url: signUrl(deps.config.appUrl, deps.secret, signer.id), until: copyUntil } } : {}),
      }),
      purpose: 'document-completed',
      tenantId: document.tenant_id,
      secrets: [new URL(link.url).searchParams.get('token')!, ...(signer ? [signerToken(deps.secret, signer.id)] : [])],
      dedupeKey: `document-completed:${documentId}:${email}`,
      documentId,
      ...(signer ? { signerId: signer.id } : {}),
    });
  }
  return recipients.size;
}

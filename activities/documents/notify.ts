import type { Db } from '../../db/connect';
import { ApiKey, Apply, Document, DocumentSigner, Mandate, Principal } from '../../db/models';
import { type MailQueueDeps, queueMail } from '../mail/queue';
import { stopSection } from '../mandates/stop';
import { documentDownloadUrl, signerToken, signUrl } from './links';

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
    subject: `Your signature was applied to "${document!.name}"`,
    text: [
      `Hello ${principal.name},`,
      '',
      `Under your L2 mandate "${mandate!.name}" (${mandate!.id}), the API key "${key!.label}" (${key!.prefix}…) applied your stored signature to "${document!.name}" (${document!.id}) at ${apply.applied_at!.toISOString()}.`,
      apply.input.reason ? `Its reason: ${apply.input.reason}` : '',
      `Document SHA-256 before: ${apply.pre_sign_hash}`,
      `Document SHA-256 after: ${apply.document_hash}`,
      '',
      'If you did not expect this, stop the agent: revoking the mandate stops further signatures at once.',
      ...stop.lines,
    ].join('\n'),
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
  const reason = `${apply.error_message ?? 'The signature could not be applied.'} (${apply.error_code ?? 'sign_failed'})`;
  if (apply.mandate_id) {
    const mandate = (await Mandate.query(deps.db).findById(apply.mandate_id))!;
    const principal = (await Principal.query(deps.db).findById(mandate.principal_id))!;
    const level = (apply.confirmation_level ?? 'l2').toUpperCase();
    const stop = stopSection(deps.config.appUrl, deps.secret, mandate.id);
    await queueMail(deps, {
      to: principal.email,
      subject: `Your signature could not be applied to "${document!.name}"`,
      text: [
        `Hello ${principal.name},`,
        '',
        `Your stored signature could not be applied to "${document!.name}" (${document!.id}) under your ${level} mandate "${mandate.name}" (${mandate.id}).`,
        `Why: ${reason}`,
        '',
        'Nothing was signed. Your agent was told; it may ask again once the cause is fixed.',
        ...stop.lines,
      ].join('\n'),
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
    subject: `Your signature on "${document!.name}" could not be applied`,
    text: [
      `Hello ${signer!.name},`,
      '',
      `Your signature on "${document!.name}" could not be applied, so the document is not signed by you yet.`,
      `Why: ${reason}`,
      '',
      `You can sign again at your link: ${signUrl(deps.config.appUrl, deps.secret, signer!.id)}`,
    ].join('\n'),
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
  const who = signers.map((signer) => `- ${signer.signed_name ?? signer.name} <${signer.signed_email ?? signer.email}>`);
  const recipients = new Map<string, { name: string; signer?: DocumentSigner }>();
  for (const signer of signers) recipients.set(signer.email.toLowerCase(), { name: signer.name, signer });
  if (owner && !recipients.has(owner.email.toLowerCase())) recipients.set(owner.email.toLowerCase(), { name: owner.name });
  for (const [email, { name, signer }] of recipients) {
    await queueMail(deps, {
      to: email,
      subject: `Completed: "${document.name}" is signed by everyone`,
      text: [
        `Hello ${name},`,
        '',
        `"${document.name}" (${document.id}) was completed on ${document.completed_at.toISOString()}: every signer has signed.`,
        ...who,
        '',
        `Download the completed PDF (valid until ${link.expires_at}; its last page is the certificate of completion):`,
        link.url,
        `SHA-256 of the completed PDF: ${document.current_sha256}`,
        signer
          ? `You can also download it from your sign link until ${copyUntil.toISOString().slice(0, 10)}: ${signUrl(deps.config.appUrl, deps.secret, signer.id)}`
          : 'It also stays listed in the app, under your documents.',
      ].join('\n'),
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

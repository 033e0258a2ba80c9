import type { Db } from '../../db/connect';
import { ApiKey, Apply, Document, Mandate, Principal } from '../../db/models';
import { type MailQueueDeps, queueMail } from '../mail/queue';

/**
 * SPEC apply step 9: after an L2 apply the principal is told by e-mail what was signed, by which
 * key, under which mandate. L1 applies were confirmed by the principal, so they get no mail.
 */
export async function notifyPrincipalOfApply(deps: MailQueueDeps & { db: Db }, applyId: string): Promise<boolean> {
  const apply = await Apply.query(deps.db).findById(applyId);
  if (apply?.status !== 'applied' || apply.kind !== 'mandate' || apply.confirmation_level !== 'l2') return false;
  const [document, mandate, key] = await Promise.all([
    Document.query(deps.db).findById(apply.document_id),
    Mandate.query(deps.db).findById(apply.mandate_id!),
    ApiKey.query(deps.db).findById(apply.api_key_id!),
  ]);
  const principal = (await Principal.query(deps.db).findById(mandate!.principal_id))!;
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
      'If you did not expect this, revoke the mandate in the app: it stops further signatures at once.',
    ].join('\n'),
    purpose: 'l2-notice',
    tenantId: principal.tenant_id,
    dedupeKey: `l2-notice:${apply.id}`,
    documentId: apply.document_id,
  });
  return true;
}

import type { Db } from '../../db/connect';
import { Document, Principal } from '../../db/models';
import type { Mailer } from '../mail/mailer';
import { signersOf } from './documents';
import { signUrl } from './links';

/**
 * E-mails each signer who may sign now their sign link: every pending signer, or under strict order
 * only the first one pending. Each invitation is sent once (deduplicated), so calling this after
 * every apply invites the next signer in turn.
 */
export async function inviteSigners(deps: { db: Db; mailer: Mailer; secret: Buffer; appUrl: string }, documentId: string): Promise<number> {
  const document = await Document.query(deps.db).findById(documentId);
  if (!document || document.status !== 'sent') return 0;
  const owner = (await Principal.query(deps.db).findById(document.owner_principal_id))!;
  const pending = (await signersOf(deps.db, documentId)).filter((signer) => signer.status === 'pending');
  const eligible = document.strict_order ? pending.slice(0, 1) : pending;
  for (const signer of eligible) {
    await deps.mailer.send({
      to: signer.email,
      subject: `${owner.name} sent you "${document.name}" to sign`,
      text: [
        `Hello ${signer.name},`,
        '',
        `${owner.name} (${owner.email}) asks you to sign "${document.name}" as ${signer.role}.`,
        '',
        `Open the document: ${signUrl(deps.appUrl, deps.secret, signer.id)}`,
        '',
        'To protect you, the page asks for a code that we send to this address before you can read or sign.',
        'If you did not expect this document, you can ignore this message or decline on the page.',
      ].join('\n'),
      purpose: 'sign-invite',
      tenantId: document.tenant_id,
      dedupeKey: `sign-invite:${signer.id}`,
    });
  }
  return eligible.length;
}

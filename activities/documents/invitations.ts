import type { Db } from '../../db/connect';
import { Document, Principal } from '../../db/models';
import { type MailQueueDeps, queueMail } from '../mail/queue';
import { type MailState, mailStates } from '../mail/status';
import type { WorkLane } from '../workflows';
import { signersOf } from './documents';
import { signerToken, signUrl } from './links';
import { inviteMail } from './mails';
import { signersAllowedNow } from './turn';

const inviteKey = (signerId: string) => `sign-invite:${signerId}`;

/**
 * E-mails each signer who may sign now their sign link: every pending signer, or under strict order
 * only the first one pending. Each invitation is queued once (deduplicated), so calling this after
 * every apply invites the next signer in turn; delivery runs in the mail's own workflow.
 */
export async function inviteSigners(
  deps: MailQueueDeps & { db: Db; secret: Buffer },
  documentId: string,
  lane?: WorkLane,
): Promise<number> {
  const document = await Document.query(deps.db).findById(documentId);
  if (document?.status !== 'sent') return 0;
  const owner = (await Principal.query(deps.db).findById(document.owner_principal_id))!;
  const eligible = signersAllowedNow(document, await signersOf(deps.db, documentId));
  for (const signer of eligible) {
    await queueMail(
      deps,
      {
        to: signer.email,
        ...inviteMail({
          signerName: signer.name,
          role: signer.role,
          ownerName: owner.name,
          ownerEmail: owner.email,
          documentName: document.name,
          signUrl: signUrl(deps.config.appUrl, deps.secret, signer.id),
        }),
        purpose: 'sign-invite',
        tenantId: document.tenant_id,
        secrets: [signerToken(deps.secret, signer.id)],
        dedupeKey: inviteKey(signer.id),
        documentId: document.id,
        signerId: signer.id,
      },
      undefined,
      lane,
    );
  }
  return eligible.length;
}

export type Invitation = MailState;

/** The sign-link e-mail of each signer, so the sender sees one that failed. */
export async function invitationsOf(db: Db, signerIds: string[]): Promise<Map<string, Invitation>> {
  const states = await mailStates(db, signerIds.map(inviteKey));
  return new Map(signerIds.flatMap((id) => (states.has(inviteKey(id)) ? [[id, states.get(inviteKey(id))!] as const] : [])));
}

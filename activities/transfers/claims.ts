import type { Db } from '../../db/connect';
import { type DriveFile, type Principal, type Transfer, TransferRecipient } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { readToken, signToken } from '../../lib/secrets/signed';
import { bestEffort } from '../../lib/temporal';
import { normalizeEmail } from '../accounts/accounts';
import { type Actor, recordAudit, recordObservation } from '../audit/audit';
import { releaseIfReady } from './release';
import { blockedWords, recipientOfToken, type TransferDeps, type TransferView, transferView, visibleTransfer } from './transfers';

const DOWNLOAD_PURPOSE = 'transfer-download';

/** A short-lived link to one file of a released package. */
export interface DownloadLink {
  file: DriveFile;
  url: string;
  expires_at: string;
}

export interface DownloadGrant {
  transferId: string;
  driveFileId: string;
}

/** The signed URLs of every file of a released package (DESIGN: 5 minutes); 409 before it is released. */
export async function downloadLinks(
  deps: Pick<TransferDeps, 'db' | 'secret' | 'config'>,
  view: TransferView,
  now = Date.now(),
): Promise<DownloadLink[]> {
  if (view.transfer.status !== 'released') {
    const why = (await blockedWords(deps.db, view.transfer)) ?? t('errors.transfers.not_released_yet');
    throw errors.invalidState(t('errors.transfers.files_transfer_cannot_downloaded', { why }));
  }
  const exp = now + deps.config.durations.downloadUrlMs;
  return view.files.map((file) => ({
    file,
    url: `${deps.config.publicUrl}/files/transfers/${signToken(deps.secret, DOWNLOAD_PURPOSE, { t: view.transfer.id, f: file.id, exp })}`,
    expires_at: new Date(exp).toISOString(),
  }));
}

/** The package and file a download link names, when it is one of ours and has not expired. */
export function readDownloadLink(secret: Buffer, token: string): DownloadGrant | undefined {
  const payload = readToken<{ t: string; f: string; exp: number }>(secret, DOWNLOAD_PURPOSE, token);
  return payload && typeof payload.t === 'string' && typeof payload.f === 'string'
    ? { transferId: payload.t, driveFileId: payload.f }
    : undefined;
}

/**
 * POST /transfers/:id/downloads: the sender, or a recipient the package is bound to (by a claim),
 * mints download links of a released package; anyone else gets 404.
 */
export async function mintDownloads(deps: TransferDeps, principal: Principal, id: string, actor: Actor): Promise<DownloadLink[]> {
  const { transfer, sent } = await visibleTransfer(deps.db, principal, id);
  const bound = sent ? undefined : await TransferRecipient.query(deps.db).findOne({ transfer_id: id, bound_principal_id: principal.id });
  if (!sent && !bound) throw errors.notFound(t('errors.transfers.no_such_transfer_bound_claim'));
  const links = await downloadLinks(deps, await transferView(deps.db, transfer));
  await recordMinted(deps.db, transfer, actor, bound?.id);
  return links;
}

/** Who was given download links of a package, and when: on the record (the links themselves are not). */
async function recordMinted(db: Db, transfer: Transfer, actor: Actor, recipientId?: string): Promise<void> {
  await recordObservation(db, {
    tenantId: transfer.tenant_id,
    actor,
    action: 'transfer.downloads_minted',
    data: { transfer_id: transfer.id, recipient_id: recipientId ?? null },
  });
}

/** Binds a recipient to the principal whose e-mail it was sent to (an inbox bind), once. */
async function bind(deps: Pick<TransferDeps, 'db'>, recipient: TransferRecipient, transfer: Transfer, principal: Principal, actor: Actor) {
  await deps.db.transaction(async (trx) => {
    const now = new Date();
    const bound = await TransferRecipient.query(trx)
      .findById(recipient.id)
      .whereNull('bound_principal_id')
      .patch({ bound_principal_id: principal.id, bound_at: now, claimed_at: recipient.claimed_at ?? now });
    if (bound)
      await recordAudit(trx, {
        tenantId: transfer.tenant_id,
        actor,
        action: 'transfer.bound',
        data: { transfer_id: transfer.id, recipient_id: recipient.id, principal_id: principal.id },
      });
  });
}

export interface Claim {
  view: TransferView;
  recipient: TransferRecipient;
  /** Bound to the key's principal (its e-mail is the recipient's), or a guest capability only. */
  bound: boolean;
}

/**
 * POST /transfers/claim {token}: with the recipient's e-mail, the package is bound to the key's
 * principal (it then lists it and mints downloads by id); otherwise the key holds a guest
 * capability: the token itself downloads after release, nothing is bound.
 */
export async function claimTransfer(deps: TransferDeps, principal: Principal, token: string, actor: Actor): Promise<Claim> {
  const { recipient, transfer } = await recipientOfToken(deps.db, token);
  const matches = normalizeEmail(recipient.email) === normalizeEmail(principal.email);
  if (matches && recipient.bound_principal_id && recipient.bound_principal_id !== principal.id)
    throw errors.invalidState(t('errors.transfers.claim_already_bound_another_account'));
  if (matches) await bind(deps, recipient, transfer, principal, actor);
  else if (!recipient.claimed_at) await TransferRecipient.query(deps.db).findById(recipient.id).patch({ claimed_at: new Date() });
  return {
    view: await transferView(deps.db, transfer),
    recipient: (await TransferRecipient.query(deps.db).findById(recipient.id))!,
    bound: matches,
  };
}

/**
 * Accept-to-unlock (POST /transfers/accept, POST /public/transfers/:token/accept, the claim page):
 * the recipient the token names accepts, once; the package is released in the same transaction when
 * that was the last acceptance. Other modes answer 409.
 */
export async function acceptTransfer(deps: TransferDeps, token: string, actor: Actor): Promise<Claim> {
  const { recipient, transfer } = await recipientOfToken(deps.db, token);
  if (transfer.mode !== 'accept') throw errors.invalidState(t('errors.transfers.transfer_does_not_wait_recipients'));
  if (transfer.status !== 'offered' && transfer.status !== 'released')
    throw errors.invalidState(t('errors.transfers.transfer_cannot_accepted', { status: transfer.status }));
  await deps.db.transaction(async (trx) => {
    const accepted = await TransferRecipient.query(trx).findById(recipient.id).whereNull('accepted_at').patch({ accepted_at: new Date() });
    if (accepted)
      await recordAudit(trx, {
        tenantId: transfer.tenant_id,
        actor,
        action: 'transfer.accepted',
        data: { transfer_id: transfer.id, recipient_id: recipient.id },
      });
    await releaseIfReady(trx, transfer.id);
  });
  await bestEffort(deps.workflows, `wake-up of ${transfer.id}`, () => deps.workflows.wakeTransfer(transfer.id));
  const view = await transferView(deps.db, (await recipientOfToken(deps.db, token)).transfer);
  return {
    view,
    recipient: (await TransferRecipient.query(deps.db).findById(recipient.id))!,
    bound: Boolean(recipient.bound_principal_id),
  };
}

/** POST /public/transfers/:token/downloads: the guest's links, after release. */
export async function publicDownloads(
  deps: TransferDeps,
  token: string,
  actor: Actor,
): Promise<{ transferId: string; links: DownloadLink[] }> {
  const { transfer, recipient } = await recipientOfToken(deps.db, token);
  const links = await downloadLinks(deps, await transferView(deps.db, transfer));
  await recordMinted(deps.db, transfer, actor, recipient.id);
  return { transferId: transfer.id, links };
}

/** GET /public/transfers/:token: what the guest may know (never a file URL). */
export async function publicClaim(db: Db, token: string): Promise<{ view: TransferView; recipient: TransferRecipient }> {
  const { recipient, transfer } = await recipientOfToken(db, token);
  return { view: await transferView(db, transfer), recipient };
}

/**
 * POST /public/transfers/:token/bind: a principal signed in to the app, whose e-mail is the
 * recipient's, binds the claim to their account; any other session learns nothing (404).
 */
export async function bindBySession(deps: TransferDeps, token: string, principal: Principal, actor: Actor): Promise<Claim> {
  const { recipient, transfer } = await recipientOfToken(deps.db, token);
  if (normalizeEmail(recipient.email) !== normalizeEmail(principal.email)) throw errors.notFound(t('errors.transfers.no_such_transfer'));
  if (recipient.bound_principal_id && recipient.bound_principal_id !== principal.id)
    throw errors.invalidState(t('errors.transfers.claim_already_bound_another_account'));
  await bind(deps, recipient, transfer, principal, actor);
  return {
    view: await transferView(deps.db, transfer),
    recipient: (await TransferRecipient.query(deps.db).findById(recipient.id))!,
    bound: true,
  };
}

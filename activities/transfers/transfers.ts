import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { Document, DriveFile, Principal, Transfer, TransferFile, TransferRecipient } from '../../db/models';
import { errors } from '../../lib/errors';
import { hasMessage, t } from '../../lib/i18n';
import { newId, randomBase62, sha256Hex } from '../../lib/ids';
import { page } from '../../lib/paging';
import { bestEffort } from '../../lib/temporal';
import { type Caller, normalizeEmail } from '../accounts/accounts';
import { type Actor, recordAudit } from '../audit/audit';
import { lockDriveFiles } from '../drive/drive';
import { type MailQueueDeps, queueMail } from '../mail/queue';
import { startAfterCommit, starts } from '../workflow-starts';
import { transferOfferMail } from './mails';
import { type ReleaseDeps, releaseIfReady } from './release';

export interface TransferDeps extends ReleaseDeps, MailQueueDeps {
  secret: Buffer;
}

/** A package with what it holds and who it is for, in order. */
export interface TransferView {
  transfer: Transfer;
  files: DriveFile[];
  recipients: TransferRecipient[];
  sender: Principal;
}

const TOKEN = /^svcxfer_[0-9A-Za-z]{32}$/;

/** A claim token: `svcxfer_` and 32 random base62 characters, shown once; only its SHA-256 is kept. */
export function newClaimToken(): string {
  return `svcxfer_${randomBase62(32)}`;
}

export function claimUrl(appUrl: string, token: string): string {
  return `${appUrl}/claim/${token}`;
}

export async function transferView(db: Db | Knex.Transaction, transfer: Transfer): Promise<TransferView> {
  // One after another: `db` may be a transaction, whose one connection runs one query at a time.
  const rows = await TransferFile.query(db).where({ transfer_id: transfer.id }).orderBy('position');
  const recipients = await TransferRecipient.query(db).where({ transfer_id: transfer.id }).orderBy('position');
  const sender = await Principal.query(db).findById(transfer.principal_id);
  const files = await DriveFile.query(db).whereIn(
    'id',
    rows.map((row) => row.drive_file_id),
  );
  const byId = new Map(files.map((file) => [file.id, file]));
  return { transfer, files: rows.map((row) => byId.get(row.drive_file_id)!), recipients, sender: sender! };
}

/**
 * Why a package is blocked for good, in the reader's words: its linked document ended unsigned.
 * (`blocked_reason` keeps the English for the API; a page or a refusal words it from the catalogue.)
 */
export async function blockedWords(
  db: Db | Knex.Transaction,
  transfer: Transfer,
  /** The linked document when the caller read it already (the claim page shows it too). */
  linked?: Pick<Document, 'status'>,
): Promise<string | undefined> {
  if (!transfer.blocked_reason) return undefined;
  const document = linked ?? (transfer.document_id ? await Document.query(db).findById(transfer.document_id) : undefined);
  const key = `sign.claim.blocked.${document?.status}`;
  return t(hasMessage(key) ? key : 'sign.claim.blocked.other');
}

/**
 * POST /transfers: a package of the principal's Drive files for recipients. Its mode: share (files
 * unlock at offer), sign-to-unlock (`document_id`: when that document of the account completes), or
 * accept-to-unlock (`requires_acceptance`: when every recipient accepts); never both.
 */
export async function createTransfer(
  deps: Pick<TransferDeps, 'db'>,
  caller: Caller,
  input: {
    name: string;
    drive_file_ids: string[];
    recipients: Array<{ email: string; name: string }>;
    document_id?: string;
    requires_acceptance?: boolean;
  },
  actor: Actor,
): Promise<TransferView> {
  if (input.document_id && input.requires_acceptance)
    throw errors.invalidRequest(t('errors.transfers.package_unlocks_when_document_completes'), [
      { path: 'requires_acceptance', message: 'not with document_id' },
    ]);
  if (new Set(input.drive_file_ids).size !== input.drive_file_ids.length)
    throw errors.invalidRequest(t('errors.transfers.drive_file_listed_twice'), [{ path: 'drive_file_ids', message: 'duplicate' }]);
  const emails = input.recipients.map((recipient) => normalizeEmail(recipient.email));
  if (new Set(emails).size !== emails.length)
    throw errors.invalidRequest(t('errors.transfers.recipient_listed_twice'), [{ path: 'recipients', message: 'duplicate e-mail' }]);
  if (input.document_id) {
    const document = await Document.query(deps.db).findById(input.document_id).where({ tenant_id: caller.tenant.id });
    if (!document) throw errors.notFound(t('errors.transfers.no_such_document_account'));
    if (document.status === 'declined' || document.status === 'voided' || document.status === 'expired')
      throw errors.invalidState(t('errors.transfers.document_will_never_complete_so', { status: document.status }));
  }
  const mode = input.document_id ? 'sign' : input.requires_acceptance ? 'accept' : 'share';
  return deps.db.transaction(async (trx) => {
    const files = await lockDriveFiles(trx, caller.principal.id, input.drive_file_ids);
    const transfer = await Transfer.query(trx).insertAndFetch({
      id: newId('xfr'),
      tenant_id: caller.tenant.id,
      principal_id: caller.principal.id,
      api_key_id: caller.apiKey.id,
      name: input.name.trim(),
      mode,
      document_id: input.document_id ?? null,
      status: 'created',
    });
    await TransferFile.query(trx).insert(files.map((file, position) => ({ transfer_id: transfer.id, position, drive_file_id: file.id })));
    await TransferRecipient.query(trx).insert(
      input.recipients.map((recipient, position) => ({
        id: newId('rcp'),
        transfer_id: transfer.id,
        position,
        email: emails[position],
        name: recipient.name.trim(),
      })),
    );
    await recordAudit(trx, {
      tenantId: caller.tenant.id,
      actor,
      action: 'transfer.created',
      data: { transfer_id: transfer.id, mode, files: files.map((file) => file.id), recipients: emails },
    });
    return transferView(trx, transfer);
  });
}

/**
 * A package this principal may see: its sender, or one of its recipients once it was offered (by
 * e-mail, or bound to them by a claim); 404 for anyone else.
 */
export async function visibleTransfer(db: Db, principal: Principal, id: string): Promise<{ transfer: Transfer; sent: boolean }> {
  const transfer = await Transfer.query(db).findById(id);
  if (transfer?.principal_id === principal.id) return { transfer, sent: true };
  if (transfer && transfer.status !== 'created') {
    const mine = await TransferRecipient.query(db)
      .where({ transfer_id: id })
      .where((q) => q.where({ bound_principal_id: principal.id }).orWhereRaw('lower(email) = ?', [normalizeEmail(principal.email)]))
      .first();
    if (mine) return { transfer, sent: false };
  }
  throw errors.notFound(t('errors.transfers.no_such_transfer_of_account'));
}

/** GET /transfers: packages this principal sent, or received (offered to their e-mail or bound to them), newest first. */
export async function listTransfers(
  db: Db,
  principal: Principal,
  query: { limit: number; cursor?: string; direction?: 'sent' | 'received' },
) {
  const received = TransferRecipient.query(db)
    .select('transfer_id')
    .where((q) => q.where({ bound_principal_id: principal.id }).orWhereRaw('lower(email) = ?', [normalizeEmail(principal.email)]));
  const rows = Transfer.query(db);
  if (query.direction === 'sent') rows.where('transfers.principal_id', principal.id);
  else if (query.direction === 'received') rows.whereIn('transfers.id', received).whereNot('transfers.status', 'created');
  else
    rows.where((q) =>
      q
        .where('transfers.principal_id', principal.id)
        .orWhere((r) => r.whereIn('transfers.id', received).whereNot('transfers.status', 'created')),
    );
  return page(rows, { limit: query.limit, cursor: query.cursor, table: 'transfers' });
}

async function lockSent(trx: Knex.Transaction, caller: Caller, id: string): Promise<Transfer> {
  const transfer = await Transfer.query(trx).findById(id).where({ principal_id: caller.principal.id }).forUpdate();
  if (!transfer) throw errors.notFound(t('errors.transfers.no_such_transfer_of_account'));
  return transfer;
}

export interface OfferedTransfer {
  view: TransferView;
  /** Each recipient's raw claim token, by recipient id: answered once, never stored. */
  tokens: Map<string, string>;
}

/**
 * POST /transfers/:id/offer: each recipient gets a claim token (shown here once, stored only as a
 * SHA-256) and an e-mail with their claim link; a share package is released at once. The start of the
 * unlock wait is recorded in the same transaction and made after its commit (activities/workflow-starts.ts).
 */
export async function offerTransfer(deps: TransferDeps, caller: Caller, id: string, actor: Actor): Promise<OfferedTransfer> {
  return deps.db.transaction(async (trx) => {
    const transfer = await lockSent(trx, caller, id);
    if (transfer.status !== 'created')
      throw errors.invalidState(t('errors.transfers.transfer_offered_once_claim_tokens', { status: transfer.status }));
    const sender = (await Principal.query(trx).findById(transfer.principal_id))!;
    const recipients = await TransferRecipient.query(trx).where({ transfer_id: id }).orderBy('position');
    const tokens = new Map<string, string>();
    for (const recipient of recipients) {
      const token = newClaimToken();
      tokens.set(recipient.id, token);
      await recipient.$query(trx).patch({ token_hash: sha256Hex(token) });
      const link = claimUrl(deps.config.appUrl, token);
      await queueMail(
        deps,
        {
          to: recipient.email,
          ...transferOfferMail({
            recipientName: recipient.name,
            senderName: sender.name,
            senderEmail: sender.email,
            transferName: transfer.name,
            mode: transfer.mode,
            claimUrl: link,
          }),
          purpose: 'transfer-offer',
          tenantId: transfer.tenant_id,
          secrets: [token],
          dedupeKey: `transfer-offer:${recipient.id}`,
        },
        trx,
      );
    }
    await transfer.$query(trx).patch({ status: 'offered', offered_at: new Date() });
    await recordAudit(trx, { tenantId: transfer.tenant_id, actor, action: 'transfer.offered', data: { transfer_id: id } });
    await releaseIfReady(trx, id);
    await startAfterCommit(deps, trx, starts.transfer(transfer));
    return { view: await transferView(trx, (await Transfer.query(trx).findById(id))!), tokens };
  });
}

/** POST /transfers/:id/cancel: a created or offered package is cancelled; every claim link stops working (404). */
export async function cancelTransfer(deps: TransferDeps, caller: Caller, id: string, actor: Actor): Promise<TransferView> {
  const view = await deps.db.transaction(async (trx) => {
    const transfer = await lockSent(trx, caller, id);
    if (transfer.status !== 'created' && transfer.status !== 'offered')
      throw errors.invalidState(t('errors.transfers.transfer_only_created_offered_one', { status: transfer.status }));
    const cancelled = await transfer.$query(trx).patchAndFetch({ status: 'cancelled', cancelled_at: new Date() });
    await TransferRecipient.query(trx).where({ transfer_id: id }).patch({ token_hash: null });
    await recordAudit(trx, { tenantId: transfer.tenant_id, actor, action: 'transfer.cancelled', data: { transfer_id: id } });
    return transferView(trx, cancelled);
  });
  // Its unlock wait reads the cancel and ends; a missed wake-up only lets it wait until its next look.
  await bestEffort(deps.workflows, `wake-up of ${id}`, () => deps.workflows.wakeTransfer(id));
  return view;
}

/** The recipient a claim token names, with its package, unless the package was cancelled; 404 alike for every other token. */
export async function recipientOfToken(
  db: Db | Knex.Transaction,
  token: string,
): Promise<{ recipient: TransferRecipient; transfer: Transfer }> {
  const recipient = TOKEN.test(token) ? await TransferRecipient.query(db).findOne({ token_hash: sha256Hex(token) }) : undefined;
  const transfer = recipient && (await Transfer.query(db).findById(recipient.transfer_id));
  if (!recipient || !transfer || transfer.status === 'cancelled') throw errors.notFound(t('errors.transfers.no_such_transfer_link'));
  return { recipient, transfer };
}

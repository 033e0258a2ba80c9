import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { Document, DriveFile, Transfer, TransferFile } from '../../db/models';
import type { BlobStore } from '../../lib/blobs';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { newId } from '../../lib/ids';
import { page } from '../../lib/paging';
import type { Caller } from '../accounts/accounts';
import { type Actor, recordAudit } from '../audit/audit';
import { sniffKind } from './kinds';

export interface DriveDeps {
  db: Db;
  blobs: BlobStore;
}

/** A file name as given, without any path, control characters or more than 255 characters; the kind names an empty one. */
export function driveFileName(given: string | undefined, kind: string): string {
  const base = (given ?? '').split(/[\\/]/).pop() ?? '';
  const printable = [...base].filter((character) => character.charCodeAt(0) > 0x1f && character.charCodeAt(0) !== 0x7f).join('');
  const clean = printable.trim().slice(0, 255);
  return clean && clean !== '.' && clean !== '..' ? clean : `upload.${kind}`;
}

/**
 * POST /assets: the body streams to the blob store while its SHA-256 and size are computed (never
 * held whole); its kind is sniffed from the bytes. A refused kind, an empty file, a body over the
 * limit or cut short leaves nothing behind.
 */
export async function uploadAsset(
  deps: DriveDeps,
  caller: Caller,
  input: { source: Readable | AsyncIterable<Uint8Array>; filename?: string },
  actor: Actor,
): Promise<DriveFile> {
  const staged = await deps.blobs.stage(input.source);
  let kind: { kind: string; mediaType: string } | undefined;
  try {
    if (staged.size === 0) throw errors.invalidRequest(t('errors.drive.file_empty'), [{ path: 'body', message: 'empty' }]);
    kind = await sniffKind(staged.path);
    if (!kind) throw errors.unsupportedMediaType(t('errors.drive.unsupported_file'));
    await staged.commit();
  } catch (error) {
    await staged.discard();
    throw error;
  }
  return deps.db.transaction(async (trx) => {
    const file = await DriveFile.query(trx).insertAndFetch({
      id: newId('drv'),
      tenant_id: caller.tenant.id,
      principal_id: caller.principal.id,
      api_key_id: caller.apiKey.id,
      name: driveFileName(input.filename, kind.kind),
      kind: kind.kind,
      media_type: kind.mediaType,
      size: staged.size,
      sha256: staged.sha256,
    });
    await recordAudit(trx, {
      tenantId: caller.tenant.id,
      actor,
      action: 'drive.uploaded',
      data: { drive_file_id: file.id, name: file.name, kind: file.kind, size: staged.size, sha256: staged.sha256 },
    });
    return file;
  });
}

/** A Drive file of this principal (not deleted); 404 for anyone else's. */
export async function findDriveFile(db: Db, principalId: string, id: string): Promise<DriveFile> {
  const file = await DriveFile.query(db).findById(id).where({ principal_id: principalId }).whereNull('deleted_at');
  if (!file) throw errors.notFound(t('errors.drive.no_such_drive_file'));
  return file;
}

/** GET /drive: the principal's Drive files, newest first. */
export async function listDrive(db: Db, principalId: string, list: { limit: number; cursor?: string }) {
  return page(DriveFile.query(db).where('drive_files.principal_id', principalId).whereNull('drive_files.deleted_at'), {
    ...list,
    table: 'drive_files',
  });
}

/**
 * DELETE /drive/:id: gone from the Drive, unless a transfer that is not cancelled or a document still
 * in draft or sent uses it (409 invalid_state). The bytes stay while anything else refers to them.
 */
export async function deleteDriveFile(db: Db, caller: Caller, id: string, actor: Actor): Promise<DriveFile> {
  await findDriveFile(db, caller.principal.id, id);
  // Under the file's row lock: a transfer or document made at the same moment takes it (FOR SHARE) first, or finds it gone.
  return db.transaction(async (trx) => {
    const file = (await DriveFile.query(trx).findById(id).forUpdate())!;
    if (file.deleted_at) throw errors.notFound(t('errors.drive.no_such_drive_file'));
    const transfer = await Transfer.query(trx)
      .whereIn('id', TransferFile.query(trx).select('transfer_id').where({ drive_file_id: id }))
      .whereNot('status', 'cancelled')
      .first();
    if (transfer)
      throw errors.invalidState(t('errors.drive.transfer_uses_file_cancel_first', { id: transfer.id, status: transfer.status }));
    const document = await Document.query(trx).where({ drive_file_id: id }).whereIn('status', ['draft', 'sent']).first();
    if (document) throw errors.invalidState(t('errors.drive.document_made_from_file', { id: document.id, status: document.status }));
    const deleted = await file.$query(trx).patchAndFetch({ deleted_at: new Date() });
    await recordAudit(trx, { tenantId: file.tenant_id, actor, action: 'drive.deleted', data: { drive_file_id: id } });
    return deleted;
  });
}

/** Drive files of this principal for a new transfer or document, locked against deletion until it commits. */
export async function lockDriveFiles(trx: Knex.Transaction, principalId: string, ids: string[]): Promise<DriveFile[]> {
  const files = await DriveFile.query(trx).whereIn('id', ids).where({ principal_id: principalId }).whereNull('deleted_at').forShare();
  const found = new Map(files.map((file) => [file.id, file]));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) throw errors.notFound(t('errors.drive.no_such_files', { missing: missing.join(', ') }));
  return ids.map((id) => found.get(id)!);
}

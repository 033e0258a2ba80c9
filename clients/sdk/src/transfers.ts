// The calls that move files through the service: the principal's Drive (uploads, streamed) and
// transfers (packages offered by claim link, released on their conditions, downloaded and checked).
import { randomUUID } from 'node:crypto';
import { enc, SvcCalls } from './base';
import { type DownloadedFile, saveFiles, type UploadSource, uploadAsset } from './files';
import type {
  Claim,
  Downloads,
  DriveFile,
  Item,
  OfferedTransfer,
  Page,
  PublicTransfer,
  Query,
  Result,
  Transfer,
  TransferCreate,
} from './types';

/** Drive and transfers, part of SvcClient (client.ts). */
export class FileCalls extends SvcCalls {
  // Drive
  /** Uploads a file (a path, bytes or a stream) to the principal's Drive, streamed; answers its drive_file_id. */
  uploadAsset(source: UploadSource): Promise<DriveFile> {
    return uploadAsset(this.http, source, randomUUID());
  }
  listDrive(query: Query<'listDrive'> = {}): Promise<Page<Item<'listDrive'>>> {
    return this.get('/v1/drive', query);
  }
  iterateDrive(query: Omit<Query<'listDrive'>, 'cursor'> = {}) {
    return this.iterate((cursor) => this.listDrive({ ...query, cursor }));
  }
  getDriveFile(id: string): Promise<DriveFile> {
    return this.get(`/v1/drive/${enc(id)}`);
  }
  deleteDriveFile(id: string): Promise<Result<'deleteDriveFile'>> {
    return this.http.request('DELETE', `/v1/drive/${enc(id)}`);
  }

  // Transfers
  createTransfer(body: TransferCreate): Promise<Transfer> {
    return this.post('/v1/transfers', body);
  }
  listTransfers(query: Query<'listTransfers'> = {}): Promise<Page<Item<'listTransfers'>>> {
    return this.get('/v1/transfers', query);
  }
  iterateTransfers(query: Omit<Query<'listTransfers'>, 'cursor'> = {}) {
    return this.iterate((cursor) => this.listTransfers({ ...query, cursor }));
  }
  getTransfer(id: string): Promise<Transfer> {
    return this.get(`/v1/transfers/${enc(id)}`);
  }
  /** Mints the claim links; each raw token is answered once, here. `confirm` must be true. */
  offerTransfer(id: string, confirm: true): Promise<OfferedTransfer> {
    return this.post(`/v1/transfers/${enc(id)}/offer`, { confirm });
  }
  claimTransfer(token: string): Promise<Claim> {
    return this.post('/v1/transfers/claim', { token });
  }
  acceptTransfer(token: string): Promise<Claim> {
    return this.post('/v1/transfers/accept', { token });
  }
  mintTransferDownloads(id: string): Promise<Downloads> {
    return this.post(`/v1/transfers/${enc(id)}/downloads`);
  }
  cancelTransfer(id: string): Promise<Transfer> {
    return this.post(`/v1/transfers/${enc(id)}/cancel`);
  }
  getPublicTransfer(token: string): Promise<PublicTransfer> {
    return this.http.request('GET', `/v1/public/transfers/${enc(token)}`, { anonymous: true });
  }
  acceptPublicTransfer(token: string): Promise<PublicTransfer> {
    return this.http.request('POST', `/v1/public/transfers/${enc(token)}/accept`, { anonymous: true, body: {} });
  }
  mintPublicTransferDownloads(token: string): Promise<Downloads> {
    return this.http.request('POST', `/v1/public/transfers/${enc(token)}/downloads`, { anonymous: true, body: {} });
  }
  /**
   * Downloads every file of a released package into `directory` (a claim token, or `{transfer_id}`
   * for the sender or a bound recipient), writing each as it streams and checking its SHA-256.
   */
  async downloadTransfer(
    target: string | { transfer_id: string },
    directory: string,
    onProgress?: (file: { name: string; size: number }, done: number) => void,
  ): Promise<DownloadedFile[]> {
    const links =
      typeof target === 'string' ? await this.mintPublicTransferDownloads(target) : await this.mintTransferDownloads(target.transfer_id);
    return saveFiles(this.http, links.files, directory, onProgress);
  }
}

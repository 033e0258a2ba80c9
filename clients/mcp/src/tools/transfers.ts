// The Drive and transfers (packages that unlock when a document is signed or every recipient accepts).
import path from 'node:path';
import { SvcError } from '@svc-agents/sdk';
import { z } from 'zod';
import { inputOf, type ToolKit, uploadBytes, WRITE } from './kit';

export function transferTools({ tool, client, options }: ToolKit): void {
  tool(
    'upload_asset',
    'Upload a file to the Drive (zip, office documents, images, PDF; its kind is read from its bytes). Answers drive_file_id, kind, size, SHA-256.',
    {
      content_base64: z.string().optional().describe('The file, base64-encoded'),
      ...(options.localFiles ? { path: z.string().optional().describe('A file on this machine') } : {}),
      filename: z.string().max(255).optional(),
    },
    WRITE,
    async (input) => {
      const { bytes, name } = await uploadBytes(input as { path?: string; content_base64?: string }, options);
      return client.uploadAsset({ bytes, filename: input.filename ?? name });
    },
  );
  tool(
    'create_transfer',
    'Make a package of Drive files for recipients: shared at offer, or unlocking when a document completes (document_id: sign-to-unlock) or when every recipient accepts (requires_acceptance: accept-to-unlock). Then offer_transfer.',
    inputOf('createTransfer'),
    WRITE,
    (input) => client.createTransfer(input),
  );
  tool(
    'offer_transfer',
    'Offer a created package: each recipient is e-mailed a claim link; the raw claim tokens are answered only this once.',
    inputOf('offerTransfer', { path: { id: 'transfer_id' }, omit: ['confirm'], describe: { transfer_id: 'xfr_…' } }),
    WRITE,
    (input) => client.offerTransfer(input.transfer_id, true),
  );
  tool(
    'claim_transfer',
    'Claim a package by its token: bound to this principal when it was sent to their e-mail, else a guest capability (download after release).',
    inputOf('claimTransfer', { describe: { token: 'svcxfer_…' } }),
    WRITE,
    (input) => client.claimTransfer(input.token),
  );
  tool(
    'accept_transfer',
    'Accept a package (accept-to-unlock): it unlocks once every recipient accepted.',
    inputOf('acceptTransfer', { describe: { token: 'svcxfer_…' } }),
    WRITE,
    (input) => client.acceptTransfer(input.token),
  );
  tool(
    'download_transfer',
    options.localFiles
      ? 'Download every file of a released package (by claim token, or transfer_id for its sender or a bound recipient) into a folder on this machine, each checked by its SHA-256.'
      : 'Short-lived download URLs of every file of a released package (by claim token, or transfer_id for its sender or a bound recipient), each with its SHA-256.',
    {
      token: z.string().optional().describe('svcxfer_…'),
      transfer_id: z.string().optional().describe('xfr_…'),
      ...(options.localFiles ? { directory: z.string().optional().describe('Folder to write into (default: ./downloads)') } : {}),
    },
    WRITE,
    async (input) => {
      const target = input.token ?? (input.transfer_id ? { transfer_id: input.transfer_id } : undefined);
      if (!target) throw new SvcError('invalid_request', 'Give token or transfer_id.', 400);
      if (!options.localFiles)
        return typeof target === 'string' ? client.mintPublicTransferDownloads(target) : client.mintTransferDownloads(target.transfer_id);
      const directory = (input as { directory?: string }).directory ?? path.resolve('downloads');
      return { files: await client.downloadTransfer(target, directory) };
    },
  );
  tool(
    'cancel_transfer',
    'Cancel a created or offered package: every claim link stops working. Cannot be undone.',
    inputOf('cancelTransfer', { path: { id: 'transfer_id' }, describe: { transfer_id: 'xfr_…' } }),
    {
      ...WRITE,
      destructiveHint: true,
    },
    (input) => client.cancelTransfer(input.transfer_id),
  );
}

// Documents: create, send, and upload a PDF for a signing envelope.
import { SvcError } from '@svc-agents/sdk';
import { z } from 'zod';
import { inputOf, type ToolKit, uploadBytes, WRITE } from './kit';

export function documentTools({ tool, client, options }: ToolKit): void {
  tool(
    'create_document',
    'Create a document from a template (template_id) or from a PDF in the Drive (drive_file_id with widgets), with its signers in signing order; values fills the template’s fields by name (get_template lists them), locked; send: true also sends it. Creating or sending signs nothing.',
    inputOf('createDocument', { describe: { drive_file_id: 'A PDF uploaded with upload_file (drv_…), with widgets' } }),
    WRITE,
    (input) => client.createDocument(input),
  );
  tool(
    'send_document',
    'Send a draft document to its signers (each is e-mailed a sign link). Sending signs nothing.',
    inputOf('sendDocument', { path: { id: 'document_id' }, omit: ['confirm'], describe: { document_id: 'doc_…' } }),
    WRITE,
    (input) => client.sendDocument(input.document_id),
  );
  tool(
    'void_document',
    'Void a sent document for good: its sign links stop (showing the reason), open L1 requests and offers on it end, its sign-to-unlock packages are cancelled, and the pending signers are e-mailed the reason. Cannot be undone.',
    inputOf('voidDocument', { path: { id: 'document_id' }, describe: { document_id: 'doc_…' } }),
    { ...WRITE, destructiveHint: true },
    (input) => client.voidDocument(input.document_id, input.reason),
  );
  tool(
    'remind_signers',
    'E-mail the pending signers of a sent document (under strict order, the one whose turn it is) a reminder with their sign link now. Each signer is reminded at most once per interval the deployment sets: sooner answers rate_limited (wait the Retry-After).',
    inputOf('remindSigners', { path: { id: 'document_id' }, describe: { document_id: 'doc_…' } }),
    WRITE,
    (input) => client.remindSigners(input.document_id),
  );
  tool(
    'upload_file',
    'Upload a PDF to the Drive for a signing envelope (then create_document with its drive_file_id and widgets). PDF only: anything else is refused.',
    {
      content_base64: z.string().optional().describe('The PDF, base64-encoded'),
      ...(options.localFiles ? { path: z.string().optional().describe('A PDF on this machine') } : {}),
      filename: z.string().max(255).optional(),
    },
    WRITE,
    async (input) => {
      const { bytes, name } = await uploadBytes(input as { path?: string; content_base64?: string }, options);
      if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-')
        throw new SvcError('unsupported_media_type', 'upload_file takes a PDF only.', 415);
      const file = await client.uploadAsset({ bytes, filename: input.filename ?? name ?? 'document.pdf' });
      if (file.kind !== 'pdf') {
        await client.deleteDriveFile(file.drive_file_id);
        throw new SvcError('unsupported_media_type', `upload_file takes a PDF only; this file is a ${file.kind}.`, 415);
      }
      return file;
    },
  );
}

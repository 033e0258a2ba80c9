// Verifying any PDF: signatures, timestamps, and whether this service issued it.
import { z } from 'zod';
import { READ, type ToolKit, uploadBytes } from './kit';

export function verifyTools({ tool, client, options }: ToolKit): void {
  tool(
    'verify_pdf',
    'Check any PDF as a relying party’s validator does: verdict `valid` (every signature passed on a certificate chain this service trusts, and nothing after it changed the document beyond its permission), `invalid` (a signature failed or the document was changed) or `indeterminate` (nothing failed but something could not be established, e.g. an untrusted chain). Each signature carries its ETSI indication and sub-indication, its trusted time, PAdES level and the changes made after it. Also whether this service issued it byte for byte (then its document, revision, and who signed it and how: browser, l1, l2 or offer, with the mandate). Only `valid` means valid. Needs no mandate; verifying signs, sends and stores nothing.',
    {
      content_base64: z.string().optional().describe('The PDF, base64-encoded'),
      ...(options.localFiles ? { path: z.string().optional().describe('A PDF on this machine') } : {}),
    },
    READ,
    async (input) => client.verifyPdf((await uploadBytes(input as { path?: string; content_base64?: string }, options)).bytes),
  );
}

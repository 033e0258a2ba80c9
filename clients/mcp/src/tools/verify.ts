// Verifying any PDF: signatures, timestamps, and whether this service issued it.
import { z } from 'zod';
import { READ, type ToolKit, uploadBytes } from './kit';

export function verifyTools({ tool, client, options }: ToolKit): void {
  tool(
    'verify_pdf',
    'Check any PDF: whether each signature and timestamp verifies cryptographically, whether bytes were added after the last one, and whether this service issued it byte for byte (then its document, revision, and who signed it and how: browser, l1, l2 or offer, with the mandate). Answers the report; valid: false comes with the problems in words. Needs no mandate; verifying signs, sends and stores nothing.',
    {
      content_base64: z.string().optional().describe('The PDF, base64-encoded'),
      ...(options.localFiles ? { path: z.string().optional().describe('A PDF on this machine') } : {}),
    },
    READ,
    async (input) => client.verifyPdf((await uploadBytes(input as { path?: string; content_base64?: string }, options)).bytes),
  );
}

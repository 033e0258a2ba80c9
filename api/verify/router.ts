import type { Services } from '../../activities/services';
import { verifyPdf } from '../../activities/verify/verify';
import { errors } from '../../lib/errors';
import { readStream } from '../http/body';
import type { Routes } from '../http/route';
import { VerifyReportSchema } from './schema';

export function verifyRoutes(routes: Routes, deps: Services): void {
  routes.add(
    {
      method: 'post',
      path: '/verify',
      operationId: 'verifyPdf',
      summary: 'Verify any PDF: its signatures and timestamps, and whether this service issued it (no key needed)',
      description:
        'The PDF as the body (`Content-Type: application/pdf`), at most SVC_VERIFY_LIMIT_BYTES (default 25 MiB, else 413). It is read off the event loop under the intake limits (422 `invalid_pdf` past them). Each signature and timestamp is checked cryptographically; a file that is byte for byte a revision this service issued names its document, revision and signers (signer data only then: the caller holds that PDF). Rate limited per client address.',
      tag: 'Verify',
      auth: 'none',
      stream: { types: ['application/pdf'], limit: deps.config.verifyLimitBytes },
      response: VerifyReportSchema,
      errors: ['payload_too_large', 'unsupported_media_type', 'invalid_pdf'],
    },
    async (_ctx, { stream }) => {
      const pdf = await readStream(stream.stream);
      if (pdf.length === 0) throw errors.invalidRequest('The body is empty: send the PDF as the body.');
      return verifyPdf({ db: deps.db, inspect: (bytes) => deps.pdf.inspect(bytes) }, pdf);
    },
  );
}

import type { Services } from '../../activities/services';
import { verifyPdf } from '../../activities/verify/verify';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { readStream } from '../http/body';
import type { Routes } from '../http/route';
import { VerifyReportSchema } from './schema';

export function verifyRoutes(routes: Routes, deps: Services): void {
  routes.add(
    {
      method: 'post',
      path: '/verify',
      operationId: 'verifyPdf',
      summary:
        'Verify any PDF like a relying party’s validator: valid, invalid or indeterminate, and whether this service issued it (no key needed)',
      description:
        'The PDF as the body (`Content-Type: application/pdf`), at most SVC_VERIFY_LIMIT_BYTES (default 25 MiB, else 413). Each signature is judged as ETSI EN 319 102-1 does (TOTAL-PASSED, TOTAL-FAILED or INDETERMINATE with a sub-indication): its structure (a /ByteRange from byte 0 to the end of a revision whose gap is exactly its /Contents), its CMS, the chain of its certificate to a trust anchor (the service’s own seal and timestamp CAs and SVC_VERIFY_TRUST_ANCHORS) at the time a trusted timestamp proves, revocation data in the file, and every change made after it (allowed: validation data, document timestamps, new signatures, and what its DocMDP permission allows). `verdict` is `valid` only when every signature passed with nothing disallowed after it; `indeterminate` when nothing failed but something could not be established (an untrusted chain, a timestamp proving no time). A file that is byte for byte a revision this service issued names its document, revision and signers (signer data only then: the caller holds that PDF). Verifies run in a lane of their own: more than SVC_VERIFY_PER_ADDRESS at once from one address answer 429 `rate_limited`, a full lane 503 `service_unavailable`, both at once with Retry-After. More than 50 signature dictionaries, or a file past the intake limits, is 422 `invalid_pdf`.',
      tag: 'Verify',
      auth: 'none',
      stream: { types: ['application/pdf'], limit: deps.config.verifyLimitBytes },
      response: VerifyReportSchema,
      errors: ['payload_too_large', 'unsupported_media_type', 'invalid_pdf', 'rate_limited', 'service_unavailable'],
    },
    async (ctx, { stream }) => {
      // A place in the verify lane first: a refused upload is never read.
      const release = deps.verifier.admit(ctx.ip);
      try {
        const pdf = await readStream(stream.stream);
        if (pdf.length === 0) throw errors.invalidRequest(t('errors.verify.body_empty_send_pdf_body'));
        return await verifyPdf({ db: deps.db, verify: (bytes) => deps.verifier.verify(bytes) }, pdf);
      } finally {
        release();
      }
    },
  );
}

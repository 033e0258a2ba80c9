import { errors, ServiceError } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { PdfError } from '../../lib/pdf/errors';

/**
 * The API's answer to a PDF engine failure: what the signer can act on keeps its own code, anything
 * else means the signature step failed (502 sign_failed), and retrying the same input cannot help,
 * but for a timestamp authority that did not answer (503: it may answer the next try).
 */
export function pdfFailure(error: PdfError): ServiceError {
  switch (error.reason) {
    case 'unfilled_fields':
    case 'missing_appearance':
      return new ServiceError(error.reason, error.message);
    case 'invalid_value':
      return errors.invalidRequest(error.message);
    // Refused at the safe intake: encrypted, signed, unreadable, or past a limit the message names.
    case 'invalid_pdf':
      return errors.invalidPdf(error.message);
    // The timestamp authority is down or answered badly: worth another try, never a seal without it.
    case 'timestamp_unavailable':
      return errors.serviceUnavailable(error.message);
    default:
      return errors.signFailed(t('errors.documents.document_could_not_stamped_sealed', { reason: error.message }));
  }
}

/** Runs a PDF step, turning its PdfError into the matching ServiceError. */
export async function pdfStep<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw error instanceof PdfError ? pdfFailure(error) : error;
  }
}

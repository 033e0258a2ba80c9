import { PdfError } from '../errors';

/** A PDF the intake will not take: the API answers 422 invalid_pdf with this message. */
export function refuse(message: string): PdfError {
  return new PdfError('invalid_pdf', message);
}

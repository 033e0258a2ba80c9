import { EncryptedPDFError, PDFDocument } from 'pdf-lib';
import { t } from '../i18n';
import { PdfError } from './errors';

/** Loads a PDF for editing, keeping its own metadata (producer, dates) untouched. */
export async function loadPdf(bytes: Uint8Array): Promise<PDFDocument> {
  try {
    const doc = await PDFDocument.load(bytes, { updateMetadata: false });
    if (doc.getPageCount() === 0) throw new PdfError('unreadable_pdf', t('errors.pdf.no_pages'));
    return doc;
  } catch (error) {
    if (error instanceof PdfError) throw error;
    if (error instanceof EncryptedPDFError) throw new PdfError('encrypted_pdf', t('errors.pdf.encrypted'));
    throw new PdfError('unreadable_pdf', t('errors.pdf.cannot_read', { reason: (error as Error).message }));
  }
}

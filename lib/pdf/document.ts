import { EncryptedPDFError, PDFDocument } from 'pdf-lib';
import { PdfError } from './errors';

/** Loads a PDF for editing, keeping its own metadata (producer, dates) untouched. */
export async function loadPdf(bytes: Uint8Array): Promise<PDFDocument> {
  try {
    const doc = await PDFDocument.load(bytes, { updateMetadata: false });
    if (doc.getPageCount() === 0) throw new PdfError('unreadable_pdf', 'The PDF has no pages.');
    return doc;
  } catch (error) {
    if (error instanceof PdfError) throw error;
    if (error instanceof EncryptedPDFError) throw new PdfError('encrypted_pdf', 'The PDF is encrypted.');
    throw new PdfError('unreadable_pdf', `The PDF cannot be read: ${(error as Error).message}`);
  }
}

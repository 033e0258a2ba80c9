// One pass over an untrusted PDF: measure, parse, refuse what cannot be made safe, strip active and
// dynamic content, flatten forms, and write it again with a classic cross-reference table.
import { EncryptedPDFError, ParseSpeeds, PDFDocument } from 'pdf-lib';
import { t } from '../../i18n';
import { PdfError } from '../errors';
import { displayedSize } from '../geometry';
import { checkMembership, checkNotDynamicXfa, checkNotSigned, checkOptionalContent, checkPageTree, isEncrypted } from './checks';
import { flattenForm } from './flatten';
import { DEFAULT_INTAKE_LIMITS, type IntakeLimits } from './limits';
import { dropUnreachable, walkReachable } from './reach';
import { refuse } from './refuse';
import { scanPdf } from './scan';
import { type Removed, stripActiveContent } from './strip';

export interface NormalisedPdf {
  /** The PDF to store, show and seal. */
  pdf: Uint8Array;
  /** Each page as displayed (crop box, turned by /Rotate), in points. */
  pages: Array<{ width: number; height: number }>;
  /** What was stripped, by kind, sorted. */
  removed: Removed[];
}

/**
 * Checks and normalises an untrusted PDF, or throws PdfError('invalid_pdf'). It parses the whole file:
 * run it through createPdfThreads (never on a request's event loop), which also enforces time and memory.
 */
export async function normalisePdf(bytes: Uint8Array, limits: IntakeLimits = DEFAULT_INTAKE_LIMITS): Promise<NormalisedPdf> {
  await scanPdf(bytes, limits);
  const doc = await load(bytes);
  try {
    return await normalise(doc, limits);
  } catch (error) {
    if (error instanceof PdfError) throw error;
    // pdf-lib throws on structures it cannot follow (a missing dictionary, a cycle through /Parent …).
    throw refuse(t('errors.pdf.structure_cannot_processed', { reason: (error as Error).message }));
  }
}

async function load(bytes: Uint8Array): Promise<PDFDocument> {
  try {
    // Fastest: no pause every 100 objects (the caller's loop is not this thread's); invalid objects are
    // kept as such and refused below only when a reader could reach them.
    return await PDFDocument.load(bytes, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
  } catch (error) {
    if (error instanceof EncryptedPDFError) throw refuse(t('errors.pdf.encrypted_upload_without_password'));
    // Includes RangeError: pdf-lib parses recursively and a deep enough nesting overflows the stack.
    throw refuse(t('errors.pdf.file_not_readable_pdf'));
  }
}

async function normalise(doc: PDFDocument, limits: IntakeLimits): Promise<NormalisedPdf> {
  const { context, catalog } = doc;
  if (isEncrypted(context)) throw refuse(t('errors.pdf.encrypted_upload_without_password'));
  const objects = context.enumerateIndirectObjects().length;
  if (objects > limits.maxObjects) throw refuse(t('errors.pdf.more_than_objects', { maxObjects: limits.maxObjects, objects }));
  checkPageTree(catalog, limits.maxPages);
  walkReachable(context, checkMembership);
  const pages = doc.getPages();
  const leaves = pages.map((page) => page.node);
  checkNotSigned(catalog, leaves);
  checkOptionalContent(catalog);
  checkNotDynamicXfa(catalog);
  const sizes = pages.map((page) => displayedSize(page));

  const removed = stripActiveContent(catalog, leaves);
  if (await flattenForm(doc)) removed.add('form_fields');

  await doc.flush();
  dropUnreachable(context);
  // Classic cross-reference table, no object streams: later incremental signatures append to it, and
  // no reader of the result has to inflate an object stream.
  const pdf = await doc.save({ useObjectStreams: false, addDefaultPage: false, updateFieldAppearances: false, objectsPerTick: Infinity });
  return { pdf, pages: sizes, removed: [...removed].sort() };
}

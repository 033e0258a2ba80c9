// What a document is made from: a template or a Drive PDF with its widgets, and the sender's values stamped in.
import type { Db } from '../../db/connect';
import type { BlobStore } from '../../lib/blobs';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import type { PdfThreads } from '../../lib/pdf/intake';
import type { SealerConfig } from '../../lib/pdf/sealer';
import type { Widget } from '../../lib/pdf/widgets';
import type { Caller } from '../accounts/accounts';
import { findDriveFile } from '../drive/drive';
import { checkWidgets, findUsableTemplate, takeInPdf } from '../templates/templates';
import { pdfStep } from './pdf-errors';
import { type PrefillValues, prefilledWidgets } from './prefill';

export interface DocumentDeps {
  db: Db;
  blobs: BlobStore;
  /** PDF work off the event loop: the intake of an uploaded PDF, the sender's values stamped, and the seal of revision 0. */
  pdf: PdfThreads;
  sealerConfig(): Promise<SealerConfig>;
}

/** What a document is made from: a template of the account, or a PDF in the principal's Drive with its widgets. */
export type DocumentSourceInput = { templateId: string } | { driveFileId: string; widgets: Widget[]; roles?: string[] };

/** The PDF (unsealed), roles and widgets of a new document, checked. */
export interface DocumentSource {
  pdfSha256: string;
  pdf: Buffer;
  roles: string[];
  widgets: Widget[];
  pageCount: number;
  templateId: string | null;
  driveFileId: string | null;
}

export async function resolveSource(deps: DocumentDeps, caller: Caller, source: DocumentSourceInput): Promise<DocumentSource> {
  if ('templateId' in source) {
    const template = await findUsableTemplate(deps.db, caller.tenant.id, source.templateId);
    return {
      pdfSha256: template.pdf_sha256,
      pdf: await deps.blobs.get(template.pdf_sha256),
      roles: template.roles,
      widgets: template.widgets,
      pageCount: template.page_count,
      templateId: template.id,
      driveFileId: null,
    };
  }
  const file = await findDriveFile(deps.db, caller.principal.id, source.driveFileId);
  if (file.kind !== 'pdf')
    throw errors.invalidRequest(t('errors.documents.drive_file_not_pdf', { id: file.id, kind: file.kind }), [
      { path: 'drive_file_id', message: 'not a PDF' },
    ]);
  // The upload as it came is untrusted: the document is made from what the safe intake makes of it.
  const intake = await takeInPdf(deps.pdf, await deps.blobs.get(file.sha256));
  const roles = checkWidgets(source.widgets, intake.pages, source.roles);
  const pdf = Buffer.from(intake.pdf);
  return {
    pdfSha256: await deps.blobs.put(pdf),
    pdf,
    roles,
    widgets: source.widgets,
    pageCount: intake.pages.length,
    templateId: null,
    driveFileId: file.id,
  };
}

/** The source with the sender's values checked and stamped (on a PDF thread) into the PDF to be sealed. */
export async function prefilled(deps: DocumentDeps, source: DocumentSource, values: PrefillValues | undefined): Promise<DocumentSource> {
  const widgets = prefilledWidgets(source.widgets, values);
  if (widgets === source.widgets) return source;
  const pdf = Buffer.from(await pdfStep(() => deps.pdf.prefill(source.pdf, widgets)));
  return { ...source, pdf, pdfSha256: await deps.blobs.put(pdf), widgets };
}

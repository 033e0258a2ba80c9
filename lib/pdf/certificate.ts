import { AFRelationship, PageSizes, type PDFPage, rgb } from 'pdf-lib';
import { t } from '../i18n';
import { formatInstant } from '../i18n/instant';
import { loadPdf } from './document';
import { type LineStyle, TextFlow, wrap } from './flow';
import { embedDejaVu, sizeToFit, truncateToFit } from './fonts';
import { displayedSize } from './geometry';

export interface CertificateSigner {
  name: string;
  email: string;
  signedAt: Date;
  method: string;
  /** Present only when the principal's stored signature was applied under a mandate (SPEC Guarantee 3). */
  viaAgent?: { mandateId: string; level: 'L1' | 'L2' };
}

/** A file the completed PDF carries (an associated file of the document), named on the certificate. */
export interface Attachment {
  name: string;
  mimeType: string;
  description: string;
  bytes: Uint8Array;
}

export interface CertificateInput {
  documentId: string;
  documentName: string;
  originalSha256: string;
  finalSha256: string;
  completedAt: Date;
  signers: CertificateSigner[];
  /** Embedded in the PDF and listed on the certificate: the audit trail and the receipt. */
  attachments?: Attachment[];
}

/** Lines only the service writes on the certificate (SPEC Guarantee 3): no name may carry them. */
const RESERVED = [/signer\s*\(\s*via\s+authori[sz]ed\s+agent\s*\)/i, /mandate\s*:/i];

/** The reserved certificate phrase a name contains, if any (a signer or principal name with one is refused). */
export function reservedCertificatePhrase(name: string): string | undefined {
  const flat = name.replace(/\s+/g, ' ');
  if (RESERVED[0].test(flat)) return 'Signer (via authorized agent)';
  if (RESERVED[1].test(flat)) return 'Mandate :';
  return undefined;
}
const GREY = rgb(0.35, 0.35, 0.35);
const RULE = rgb(0.75, 0.75, 0.75);

/**
 * Appends a completion certificate page (more pages if the signers do not fit) and returns the
 * unsealed PDF. It names each signer, the principal, and never an agent or key as a party: an apply
 * under a mandate adds only the lines `Signer (via authorized agent)` and `Mandate : <id> (L1|L2)`.
 * Its words come from the catalogue (`certificate.*`) in the current locale; those two lines are
 * SPEC's and read the same in every language.
 */
export async function appendCertificatePage(pdf: Uint8Array, input: CertificateInput): Promise<Uint8Array> {
  const doc = await loadPdf(pdf);
  const [regular, bold] = await Promise.all([embedDejaVu(doc), embedDejaVu(doc, 'DejaVuSans-Bold')]);
  const size = pageSize(doc.getPage(doc.getPageCount() - 1));
  const margin = Math.min(56, size[0] * 0.09);
  const body: LineStyle = { font: regular, size: 10, leading: 14 };
  const small: LineStyle = { ...body, size: 8, leading: 11, color: GREY };
  const heading: LineStyle = { font: bold, size: 11, leading: 20 };

  const flow = new TextFlow(doc, size, { top: margin, right: margin, bottom: margin + 16, left: margin }, (next) => {
    const title = next.pages.length === 1 ? t('certificate.title') : t('certificate.title.continued');
    next.line(title, { font: bold, size: sizeToFit(bold, title, next.width, 18, 8) ?? 8, leading: 22 });
    next.space(6);
  });
  flow.paragraph(t('certificate.intro'), small);

  flow.space(8);
  flow.line(t('certificate.document.heading'), heading);
  flow.paragraph(t('certificate.document.name', { name: input.documentName }), body);
  flow.paragraph(t('certificate.document.id', { id: input.documentId }), body);
  const original = t('certificate.document.originalSha256', { sha256: input.originalSha256 });
  flow.line(original, fitted(original, body, flow.width));
  const signed = t('certificate.document.signedSha256', { sha256: input.finalSha256 });
  flow.line(signed, fitted(signed, body, flow.width));
  flow.line(t('certificate.document.completed', { at: formatInstant(input.completedAt) }), body);

  flow.space(8);
  flow.keep(80); // the heading does not end a page alone
  flow.line(t('certificate.signers.heading'), heading);
  const name: LineStyle = { font: bold, size: 10.5, leading: 16 };
  input.signers.forEach((signer, index) => {
    const parts = signerLines(signer).map(([text, style, field]) => ({
      // What a signer typed (their name, their e-mail) is one line in its labelled field, cut to fit:
      // never wrapped, so it cannot print lines that read like the service's own.
      lines: field ? [fitOnOneLine(oneLine(text), style, flow.width)] : wrap(text, style.font, style.size, flow.width),
      style,
    }));
    // A signer's block is kept whole on one page.
    flow.keep(6 + parts.reduce((sum, part) => sum + TextFlow.height(part.lines.length, part.style), 0));
    if (index > 0) rule(flow);
    for (const part of parts) for (const line of part.lines) flow.line(line, part.style);
  });

  /** Each line of a signer's block: its text, style, and whether it holds what the signer typed. */
  function signerLines(signer: CertificateSigner): Array<[string, LineStyle, boolean]> {
    const lines: Array<[string, LineStyle, boolean]> = [
      [t('certificate.signer.name', { name: signer.name }), name, true],
      [t('certificate.signer.email', { email: signer.email }), body, true],
      [t('certificate.signer.signed', { at: formatInstant(signer.signedAt) }), body, false],
      [t('certificate.signer.method', { method: signer.method }), body, false],
    ];
    if (signer.viaAgent) {
      const { mandateId, level } = signer.viaAgent;
      lines.push([t('certificate.signer.viaAgent'), body, false], [t('certificate.signer.mandate', { mandateId, level }), body, false]);
    }
    return lines;
  }

  const attachments = input.attachments ?? [];
  if (attachments.length > 0) {
    flow.space(8);
    flow.keep(40);
    flow.line(t('certificate.attachments.heading'), heading);
    flow.paragraph(t('certificate.attachments.intro'), small);
    for (const { name, description } of attachments) flow.paragraph(t('certificate.attachments.item', { name, description }), body);
  }

  flow.pages.forEach((page, index) => {
    const footer = t('certificate.footer', { page: index + 1, pages: flow.pages.length, id: input.documentId });
    page.drawText(footer, { x: margin, y: margin * 0.6, size: 7, font: regular, color: GREY });
  });
  for (const attachment of attachments) {
    await doc.attach(attachment.bytes, attachment.name, {
      mimeType: attachment.mimeType,
      description: attachment.description,
      creationDate: input.completedAt,
      modificationDate: input.completedAt,
      afRelationship: AFRelationship.Supplement,
    });
  }
  return doc.save({ useObjectStreams: false });
}

/** The text as is when it fits the width, else cut with an ellipsis. */
function fitOnOneLine(text: string, style: LineStyle, width: number): string {
  return style.font.widthOfTextAtSize(text, style.size) <= width ? text : truncateToFit(style.font, text, width, style.size);
}

/** Text as one line: every run of white space (new lines, tabs, padding) is one space. */
function oneLine(text: string): string {
  return text.replace(/[\s\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').trim();
}

/** The last page's size as shown; A4 when it has none worth copying. */
function pageSize(page: PDFPage): [number, number] {
  const { width, height } = displayedSize(page);
  return width >= 200 && height >= 200 ? [width, height] : [...PageSizes.A4];
}

/** A hash line stays on one line: its font shrinks to the width (down to 5 points). */
function fitted(text: string, style: LineStyle, width: number): LineStyle {
  return { ...style, size: sizeToFit(style.font, text, width, style.size, 5) ?? 5 };
}

function rule(flow: TextFlow): void {
  flow.space(6);
  flow.page.drawLine({
    start: { x: flow.margins.left, y: flow.y },
    end: { x: flow.margins.left + flow.width, y: flow.y },
    thickness: 0.5,
    color: RULE,
  });
}

/** Attaches files to a PDF (associated files of the document, as the certificate's are) and answers the new bytes. */
export async function attachFiles(pdf: Uint8Array, attachments: Attachment[], at: Date): Promise<Uint8Array> {
  const doc = await loadPdf(pdf);
  for (const attachment of attachments) {
    await doc.attach(attachment.bytes, attachment.name, {
      mimeType: attachment.mimeType,
      description: attachment.description,
      creationDate: at,
      modificationDate: at,
      afRelationship: AFRelationship.Supplement,
    });
  }
  return doc.save();
}

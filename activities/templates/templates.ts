import { PDFDocument } from 'pdf-lib';
import type { Db } from '../../db/connect';
import { Template } from '../../db/models';
import type { BlobStore } from '../../lib/blobs';
import { type ErrorDetail, errors } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { displayedSize } from '../../lib/pdf/geometry';
import type { Widget } from '../../lib/pdf/widgets';
import { recordAudit } from '../audit/audit';
import { type TemplateDefinition, TemplateDefinitionSchema } from './schema';

function invalid(message: string, details?: ErrorDetail[]): never {
  throw errors.invalidRequest(message, details);
}

/** The PDF's pages as displayed, checked readable and unencrypted (400 otherwise). */
export async function pageSizes(pdf: Uint8Array): Promise<Array<{ width: number; height: number }>> {
  let document: PDFDocument;
  try {
    document = await PDFDocument.load(pdf, { updateMetadata: false });
  } catch (error) {
    const encrypted = /encrypted/i.test((error as Error).message);
    return invalid(encrypted ? 'The PDF is encrypted; upload it without a password.' : 'The file is not a readable PDF.');
  }
  if (document.getPageCount() === 0) invalid('The PDF has no pages.');
  // Widgets are placed on the page as displayed (crop box and rotation), as the stamp draws them.
  return document.getPages().map((page) => displayedSize(page));
}

/** Checks widgets against the PDF and each other; answers the roles in signing order. */
export function checkWidgets(widgets: Widget[], sizes: Array<{ width: number; height: number }>, roles?: string[]): string[] {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  widgets.forEach((widget, index) => {
    const at = `widgets.${index}`;
    if (seen.has(widget.id)) details.push({ path: `${at}.id`, message: `duplicate widget id ${widget.id}` });
    seen.add(widget.id);
    const size = sizes[widget.page - 1];
    if (!size) {
      details.push({ path: `${at}.page`, message: `the PDF has ${sizes.length} page(s)` });
      return;
    }
    if (widget.x + widget.width > size.width + 0.01 || widget.y + widget.height > size.height + 0.01) {
      details.push({ path: at, message: `the box leaves page ${widget.page} (${size.width} x ${size.height} points)` });
    }
  });
  const widgetRoles = [...new Set(widgets.map((widget) => widget.role))];
  const ordered = roles ?? widgetRoles;
  if (new Set(ordered).size !== ordered.length) details.push({ path: 'roles', message: 'roles must be distinct' });
  for (const role of widgetRoles) {
    if (!ordered.includes(role)) details.push({ path: 'roles', message: `widget role ${role} is not among the roles` });
  }
  if (details.length > 0) invalid(`The template is not valid: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`, details);
  return ordered;
}

export async function createTemplate(
  deps: { db: Db; blobs: BlobStore },
  input: { tenantId: string; pdf: Uint8Array; definition: TemplateDefinition; createdBy: string },
): Promise<Template> {
  const parsed = TemplateDefinitionSchema.safeParse(input.definition);
  if (!parsed.success) {
    const details = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
    invalid(`The template is not valid: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`, details);
  }
  const definition = parsed.data;
  const sizes = await pageSizes(input.pdf);
  const roles = checkWidgets(definition.widgets, sizes, definition.roles);
  const pdfSha256 = await deps.blobs.put(input.pdf);
  const actor = input.createdBy.startsWith('prn_')
    ? { type: 'principal' as const, id: input.createdBy }
    : { type: 'operator' as const, id: input.createdBy };
  return deps.db.transaction(async (trx) => {
    const template = await Template.query(trx).insertAndFetch({
      id: newId('tpl'),
      tenant_id: input.tenantId,
      name: definition.name,
      pdf_sha256: pdfSha256,
      page_count: sizes.length,
      roles,
      widgets: definition.widgets,
      created_by: input.createdBy,
    });
    await recordAudit(trx, {
      tenantId: input.tenantId,
      actor,
      action: 'template.created',
      data: { template_id: template.id, name: template.name, pdf_sha256: pdfSha256, roles, widgets: definition.widgets.length },
    });
    return template;
  });
}

/** A template of this tenant, or 404: another tenant's id answers exactly as an unknown one. */
export async function findTemplate(db: Db, tenantId: string, id: string): Promise<Template> {
  const template = await Template.query(db).findById(id).where({ tenant_id: tenantId });
  if (!template) throw errors.notFound('No such template.');
  return template;
}

import type { Db } from '../../db/connect';
import { Template } from '../../db/models';
import type { BlobStore } from '../../lib/blobs';
import { type ErrorDetail, errors } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { PdfError } from '../../lib/pdf/errors';
import type { NormalisedPdf, PdfThreads } from '../../lib/pdf/intake';
import type { Widget } from '../../lib/pdf/widgets';
import { recordAudit } from '../audit/audit';
import { type TemplateDefinition, TemplateDefinitionSchema } from './schema';

function invalid(message: string, details?: ErrorDetail[]): never {
  throw errors.invalidRequest(message, details);
}

/**
 * An untrusted PDF, taken in once through the safe intake (lib/pdf/intake, on a PDF thread: never on
 * this event loop): checked, normalised and stripped of active content, or refused with 422
 * invalid_pdf naming why. Its pages as displayed come with it.
 */
export async function takeInPdf(threads: PdfThreads, pdf: Uint8Array): Promise<NormalisedPdf> {
  try {
    return await threads.intake(pdf);
  } catch (error) {
    if (error instanceof PdfError && error.reason === 'invalid_pdf') throw errors.invalidPdf(error.message);
    throw error;
  }
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
  deps: { db: Db; blobs: BlobStore; pdf: PdfThreads },
  input: { tenantId: string; pdf: Uint8Array; definition: TemplateDefinition; createdBy: string },
): Promise<Template> {
  const parsed = TemplateDefinitionSchema.safeParse(input.definition);
  if (!parsed.success) {
    const details = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
    invalid(`The template is not valid: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`, details);
  }
  const definition = parsed.data;
  const intake = await takeInPdf(deps.pdf, input.pdf);
  const sizes = intake.pages;
  const roles = checkWidgets(definition.widgets, sizes, definition.roles);
  // The normalised PDF is what every document of the template shows, stamps and seals.
  const pdfSha256 = await deps.blobs.put(intake.pdf);
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
      data: {
        template_id: template.id,
        name: template.name,
        pdf_sha256: pdfSha256,
        roles,
        widgets: definition.widgets.length,
        removed: intake.removed,
      },
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

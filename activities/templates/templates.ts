import type { Knex } from 'knex';
import type { z } from 'zod';
import type { Db } from '../../db/connect';
import { Template } from '../../db/models';
import type { BlobStore } from '../../lib/blobs';
import { type ErrorDetail, errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { newId } from '../../lib/ids';
import { PdfError } from '../../lib/pdf/errors';
import type { NormalisedPdf, PdfThreads } from '../../lib/pdf/intake';
import type { Widget } from '../../lib/pdf/widgets';
import { type Actor, recordAudit } from '../audit/audit';
import { findDriveFile } from '../drive/drive';
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
  if (details.length > 0)
    invalid(t('errors.templates.template_not_valid', { problems: details.map((d) => `${d.path}: ${d.message}`).join('; ') }), details);
  return ordered;
}

function definitionOf(input: unknown): z.infer<typeof TemplateDefinitionSchema> {
  const parsed = TemplateDefinitionSchema.safeParse(input);
  if (!parsed.success) {
    const details = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
    invalid(t('errors.templates.template_not_valid', { problems: details.map((d) => `${d.path}: ${d.message}`).join('; ') }), details);
  }
  return parsed.data;
}

export async function createTemplate(
  deps: { db: Db; blobs: BlobStore; pdf: PdfThreads },
  input: { tenantId: string; pdf: Uint8Array; definition: TemplateDefinition; createdBy: string; actor?: Actor },
): Promise<Template> {
  const definition = definitionOf(input.definition);
  const intake = await takeInPdf(deps.pdf, input.pdf);
  const sizes = intake.pages;
  const roles = checkWidgets(definition.widgets, sizes, definition.roles);
  // The normalised PDF is what every document of the template shows, stamps and seals.
  const pdfSha256 = await deps.blobs.put(intake.pdf);
  const actor =
    input.actor ??
    (input.createdBy.startsWith('prn_')
      ? { type: 'principal' as const, id: input.createdBy }
      : { type: 'operator' as const, id: input.createdBy });
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

/** A template's PDF from a PDF in the principal's Drive (POST /assets): the upload, taken in again as any untrusted PDF. */
export async function drivePdf(deps: { db: Db; blobs: BlobStore }, principalId: string, driveFileId: string): Promise<Buffer> {
  const file = await findDriveFile(deps.db, principalId, driveFileId);
  if (file.kind !== 'pdf')
    invalid(t('errors.templates.drive_file_not_pdf', { id: file.id, kind: file.kind }), [{ path: 'drive_file_id', message: 'not a PDF' }]);
  return deps.blobs.get(file.sha256);
}

/** What a change of a template may set; widgets and roles are checked against its PDF together. */
export interface TemplateChange {
  name?: string;
  roles?: string[];
  widgets?: Widget[];
}

/** Lock a live template of this tenant for a change: 404 for another tenant's, 409 for a deleted one. */
async function lockLive(trx: Knex.Transaction, tenantId: string, id: string): Promise<Template> {
  const template = await Template.query(trx).findById(id).where({ tenant_id: tenantId }).forUpdate();
  if (!template) throw errors.notFound(t('errors.templates.no_such_template'));
  if (template.deleted_at) throw errors.invalidState(t('errors.templates.template_deleted_can_read_but'));
  return template;
}

/**
 * Changes a template's name, roles or widgets. New widgets are checked against the pages of its PDF
 * (the same check as at creation). Documents already made keep the copy they were made with.
 */
export async function updateTemplate(
  deps: { db: Db; blobs: BlobStore; pdf: PdfThreads },
  input: { tenantId: string; id: string; change: TemplateChange; actor: Actor },
): Promise<Template> {
  const current = await findTemplate(deps.db, input.tenantId, input.id);
  if (current.deleted_at) throw errors.invalidState(t('errors.templates.template_deleted_can_read_but'));
  const widgets = input.change.widgets ?? current.widgets;
  // Roles not given stay as they are while they cover the widgets; new widgets of other roles take theirs, as at creation.
  const covered = (widgets as Array<{ role?: unknown }>).every((widget) => current.roles.includes(widget.role as string));
  const definition = definitionOf({
    name: input.change.name ?? current.name,
    widgets,
    ...(input.change.roles ? { roles: input.change.roles } : covered ? { roles: current.roles } : {}),
  });
  let roles = current.roles;
  if (input.change.roles || input.change.widgets) {
    // Page sizes are not stored: the template's PDF (already normalised) tells them.
    const intake = await takeInPdf(deps.pdf, await deps.blobs.get(current.pdf_sha256));
    roles = checkWidgets(definition.widgets, intake.pages, definition.roles);
  }
  return deps.db.transaction(async (trx) => {
    const template = await lockLive(trx, input.tenantId, input.id);
    const updated = await template
      .$query(trx)
      .patchAndFetch({ name: definition.name, roles, widgets: definition.widgets, updated_at: new Date() });
    await recordAudit(trx, {
      tenantId: input.tenantId,
      actor: input.actor,
      action: 'template.updated',
      data: { template_id: template.id, name: definition.name, roles, widgets: definition.widgets.length },
    });
    return updated;
  });
}

/**
 * Deletes a template for new use: it is no longer listed or usable for new documents; documents made
 * from it keep their copy of its PDF and widgets, and it stays readable by id (with `deleted_at`).
 */
export async function deleteTemplate(db: Db, input: { tenantId: string; id: string; actor: Actor }): Promise<Template> {
  return db.transaction(async (trx) => {
    const template = await lockLive(trx, input.tenantId, input.id);
    const deleted = await template.$query(trx).patchAndFetch({ deleted_at: new Date() });
    await recordAudit(trx, {
      tenantId: input.tenantId,
      actor: input.actor,
      action: 'template.deleted',
      data: { template_id: template.id, name: template.name },
    });
    return deleted;
  });
}

/** A template a new document may be made from: this tenant's and not deleted. */
export async function findUsableTemplate(db: Db, tenantId: string, id: string): Promise<Template> {
  const template = await findTemplate(db, tenantId, id);
  if (template.deleted_at) throw errors.invalidState(t('errors.templates.template_deleted_documents_already_made'));
  return template;
}

/** A template of this tenant, or 404: another tenant's id answers exactly as an unknown one. */
export async function findTemplate(db: Db, tenantId: string, id: string): Promise<Template> {
  const template = await Template.query(db).findById(id).where({ tenant_id: tenantId });
  if (!template) throw errors.notFound(t('errors.templates.no_such_template'));
  return template;
}

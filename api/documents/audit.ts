import { z } from 'zod';
import { auditTrailOf } from '../../activities/documents/audit-trail';
import { findVisibleDocument } from '../../activities/documents/documents';
import type { Services } from '../../activities/services';
import { callerOf, type Routes } from '../http/route';
import { IdParamsSchema, ListQuerySchema, listOf } from '../shared/schema';

export const AuditEventSchema = z.object({
  id: z.string(),
  action: z.string().meta({
    description:
      'What happened: `document.created`, `document.sent`, `mail.sent` (a sign link or notice mailed), `document.viewed` (a signer opened it), `sign.email_verified` (a signer’s code verified), `document.signed`, `document.declined`, `document.completed`, and the sign-request and offer steps on it (`sign_request.*`, `offer.*`, `mail.failed`…). `data` follows the schema of its action (AuditLine).',
  }),
  at: z.iso.datetime(),
  actor: z.object({
    kind: z.enum(['signer', 'principal', 'agent', 'operator', 'system', 'recipient']),
    id: z.string().nullable().meta({ description: 'The signer, principal or API key that acted.' }),
    name: z.string().nullable().meta({ description: 'The signer’s or principal’s name, or the API key’s label.' }),
  }),
  principal_id: z.string().nullable().meta({ description: 'The principal who acted, or for whom an agent acted.' }),
  mandate_id: z.string().nullable().meta({ description: 'The mandate an agent acted under, where one did.' }),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
});
export const AuditListResponseSchema = listOf(AuditEventSchema);

/** GET /v1/documents/:id/audit: the document's audit trail, oldest first, to whoever may read the document. */
export function documentAuditRoutes(routes: Routes, deps: Services): void {
  routes.add(
    {
      tag: 'Documents',
      method: 'get',
      path: '/documents/:id/audit',
      operationId: 'getDocumentAudit',
      summary: 'The document’s audit trail, oldest first (owned, or inbound where the principal signs)',
      needs: { scope: 'documents:read' },
      params: IdParamsSchema,
      query: ListQuerySchema,
      response: AuditListResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params, query }) => {
      const { document } = await findVisibleDocument(deps.db, callerOf(ctx), params.id);
      const { items, next_cursor } = await auditTrailOf(deps.db, document.id, query);
      return { data: items.map((line) => ({ ...line, at: line.at.toISOString() })), next_cursor };
    },
  );
}

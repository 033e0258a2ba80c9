import { authorize } from '../../activities/accounts/authorize';
import {
  addSigners,
  agentActor,
  createDocument,
  findVisibleDocument,
  listDocuments,
  type StartDocument,
  sendDocument,
} from '../../activities/documents/documents';
import { type Invitation, invitationsOf } from '../../activities/documents/invitations';
import { documentDownloadUrl } from '../../activities/documents/links';
import { readVisibleDocument } from '../../activities/documents/read';
import { remindNow } from '../../activities/documents/reminders';
import { voidDocument } from '../../activities/documents/void';
import { checkWaits, workflowWaits } from '../../activities/documents/waits';
import type { Services } from '../../activities/services';
import { startAfterCommit, starts } from '../../activities/workflow-starts';
import { requestMeta } from '../http/request';
import { callerOf, type Routes } from '../http/route';
import { ConfirmSchema, IdParamsSchema } from '../shared/schema';
import { presentDocument, presentDownload, presentReminded } from './presenter';
import {
  DocumentCreateSchema,
  DocumentListQuerySchema,
  DocumentListResponseSchema,
  DocumentRemindResponseSchema,
  DocumentResponseSchema,
  DocumentSignersAddSchema,
  DocumentVoidSchema,
  DownloadResponseSchema,
} from './schema';

export function documentRoutes(routes: Routes, deps: Services): void {
  const base = { tag: 'Documents' } as const;
  const present = (view: Parameters<typeof presentDocument>[0], inbound = false, invitations?: Map<string, Invitation>) =>
    presentDocument(view, { inbound, appUrl: deps.config.appUrl, secret: deps.secret, invitations });
  // Invitation states are the sender's to see: loaded for outbound documents only.
  const invitationsFor = (views: Array<{ signers: Array<{ id: string }>; inbound: boolean }>) =>
    invitationsOf(
      deps.db,
      views.filter((view) => !view.inbound).flatMap((view) => view.signers.map((signer) => signer.id)),
    );
  const start: StartDocument = (trx, document, signers) =>
    startAfterCommit(deps, trx, starts.document(document, signers, workflowWaits(document)));

  routes.add(
    {
      ...base,
      method: 'post',
      path: '/documents',
      operationId: 'createDocument',
      summary: 'Create a document from a template; `send: true` also sends it',
      needs: { scope: 'documents:write' },
      body: DocumentCreateSchema,
      response: DocumentResponseSchema,
      status: 201,
      errors: ['not_found', 'invalid_state', 'invalid_pdf', 'service_unavailable', 'feature_disabled'],
    },
    async (ctx, { body }) => {
      const caller = callerOf(ctx);
      // A Drive PDF with widgets laid out by the caller is the editor's work, as a template is.
      if (body.drive_file_id) authorize(caller, { flag: 'agent_editor' }, deps.config.flags.values);
      const actor = agentActor(caller, requestMeta(ctx));
      const send = body.send ? start : undefined;
      // Checked before the PDF work: a bad expiry or reminder schedule costs nothing.
      const waits = checkWaits(deps.config.durations, body);
      return present(
        await createDocument(
          deps,
          caller,
          {
            source: body.drive_file_id
              ? { driveFileId: body.drive_file_id, widgets: body.widgets!, roles: body.roles }
              : { templateId: body.template_id! },
            name: body.name,
            signers: body.signers,
            strictOrder: body.strict_order,
            waits,
            values: body.values,
          },
          actor,
          send,
        ),
      );
    },
  );
  routes.add(
    {
      ...base,
      method: 'get',
      path: '/documents',
      operationId: 'listDocuments',
      summary: 'Documents of this account (outbound) or sent to this principal (inbound), newest first',
      needs: { scope: 'documents:read' },
      query: DocumentListQuerySchema,
      response: DocumentListResponseSchema,
    },
    async (ctx, { query }) => {
      const { items, next_cursor } = await listDocuments(deps.db, callerOf(ctx), query);
      const invitations = await invitationsFor(items);
      return { data: items.map((item) => present(item, item.inbound, invitations)), next_cursor };
    },
  );
  routes.add(
    {
      ...base,
      method: 'get',
      path: '/documents/:id',
      operationId: 'getDocument',
      summary: 'Status and sign links (owned, or inbound where the principal signs)',
      needs: { scope: 'documents:read' },
      params: IdParamsSchema,
      response: DocumentResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params }) => {
      const view = await readVisibleDocument(deps.db, callerOf(ctx), params.id);
      return present(view, view.inbound, view.invitations);
    },
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/documents/:id/signers',
      operationId: 'addSigners',
      summary: 'Add signers (draft only)',
      needs: { scope: 'documents:write' },
      params: IdParamsSchema,
      body: DocumentSignersAddSchema,
      response: DocumentResponseSchema,
      errors: ['not_found', 'invalid_state'],
    },
    async (ctx, { params, body }) => {
      const caller = callerOf(ctx);
      return present(await addSigners(deps.db, caller, params.id, body.signers, agentActor(caller, requestMeta(ctx))));
    },
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/documents/:id/send',
      operationId: 'sendDocument',
      summary: 'Send a draft to its signers (they are e-mailed their sign links)',
      needs: { scope: 'documents:write' },
      params: IdParamsSchema,
      body: ConfirmSchema,
      response: DocumentResponseSchema,
      errors: ['not_found', 'invalid_state', 'service_unavailable'],
    },
    async (ctx, { params }) => {
      const caller = callerOf(ctx);
      return present(await sendDocument(deps.db, caller, params.id, agentActor(caller, requestMeta(ctx)), start));
    },
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/documents/:id/void',
      operationId: 'voidDocument',
      summary:
        'Void a sent document: its sign links, open L1 requests and offers end, its sign-to-unlock packages are cancelled, pending signers are told why',
      needs: { scope: 'documents:write' },
      params: IdParamsSchema,
      body: DocumentVoidSchema,
      response: DocumentResponseSchema,
      errors: ['not_found', 'invalid_state'],
    },
    async (ctx, { params, body }) => {
      const caller = callerOf(ctx);
      const voided = await voidDocument(deps, { tenantId: caller.tenant.id }, params.id, body.reason, agentActor(caller, requestMeta(ctx)));
      const view = await readVisibleDocument(deps.db, caller, voided.id);
      return present(view, view.inbound, view.invitations);
    },
  );
  routes.add(
    {
      ...base,
      method: 'post',
      path: '/documents/:id/remind',
      operationId: 'remindSigners',
      summary:
        'Mail the pending signers (under strict order, the one whose turn it is) a reminder now; each signer at most once per SVC_REMIND_INTERVAL_MS',
      needs: { scope: 'documents:write' },
      params: IdParamsSchema,
      response: DocumentRemindResponseSchema,
      errors: ['not_found', 'invalid_state', 'rate_limited'],
    },
    async (ctx, { params }) => {
      const caller = callerOf(ctx);
      const { document, reminded } = await remindNow(deps, caller.tenant.id, params.id, agentActor(caller, requestMeta(ctx)));
      return presentReminded(document.id, reminded);
    },
  );
  routes.add(
    {
      ...base,
      method: 'get',
      path: '/documents/:id/download',
      operationId: 'downloadDocument',
      summary: 'A short-lived signed URL of the current sealed PDF',
      needs: { scope: 'documents:read' },
      params: IdParamsSchema,
      response: DownloadResponseSchema,
      errors: ['not_found'],
    },
    async (ctx, { params }) => {
      const { document } = await findVisibleDocument(deps.db, callerOf(ctx), params.id);
      const link = documentDownloadUrl(deps.config.publicUrl, deps.secret, {
        documentId: document.id,
        sha256: document.current_sha256,
        ttlMs: deps.config.durations.downloadUrlMs,
      });
      return presentDownload(link, document.current_sha256);
    },
  );
}

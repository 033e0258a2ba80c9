import type Router from '@koa/router';
import { documentOfPrincipal, documentsOfPrincipal } from '../../../activities/documents/principal-documents';
import type { Services } from '../../../activities/services';
import { html } from '../../http/html';
import { sendPdf } from '../files';
import { renderPage, sendPage } from '../layout';
import { dataTable, pageHandler, when } from './common';

const LISTED = 50;

/**
 * The principal's documents (sent, or sent to them to sign): status, and the current sealed PDF to
 * download; a completed one is the copy with its certificate of completion.
 */
export function documentRoutes(router: Router, deps: Services, appPath: string): void {
  router.get(
    `${appPath}/documents`,
    pageHandler(appPath, 'Documents', async ({ ctx, principal, csrf }) => {
      const documents = await documentsOfPrincipal(deps.db, principal, { limit: LISTED });
      const rows = documents.map((document) => ({
        attrs: { 'data-document': document.id },
        cells: [
          document.name,
          html`<span class="badge ${document.status}">${document.status}</span>`,
          document.owner_principal_id === principal.id ? 'You sent it' : 'Sent to you',
          when(document.completed_at ?? document.sent_at ?? document.created_at),
          document.status === 'draft'
            ? ''
            : html`<a href="${appPath}/documents/${document.id}/download" data-testid="download">${document.status === 'completed' ? 'Download the completed PDF' : 'Download the PDF'}</a>`,
        ],
      }));
      const body = documents.length
        ? html`<p class="hint">A completed document’s PDF ends with its certificate of completion and is sealed by the service.</p>${dataTable('documents', ['Document', 'Status', 'Direction', 'Last change', ''], rows)}`
        : html`<p class="muted">No documents yet.</p>`;
      sendPage(
        ctx,
        renderPage({ title: 'Documents', appPath, principal, csrf, flags: deps.config.flags.values, body, current: '/documents' }),
      );
    }),
  );
  router.get(
    `${appPath}/documents/:id/download`,
    pageHandler(appPath, 'Documents', async ({ ctx, principal }) => {
      const document = await documentOfPrincipal(deps.db, principal, ctx.params.id);
      sendPdf(ctx, await deps.blobs.get(document.current_sha256), `${document.name}.pdf`, document.current_sha256);
    }),
  );
}

import type Router from '@koa/router';
import { z } from 'zod';
import { normalizeEmail } from '../../../activities/accounts/accounts';
import { documentOfPrincipal, INBOX_SECTIONS, type InboxSection, inboxOf } from '../../../activities/documents/principal-documents';
import type { Services } from '../../../activities/services';
import { DocumentSigner } from '../../../db/models';
import { errors } from '../../../lib/errors';
import { html } from '../../http/html';
import { sendPdf } from '../files';
import { renderPage, sendPage } from '../layout';
import { dataTable, pageHandler, when } from './common';
import { documentPageRoutes } from './document';

const PAGE_SIZE = 20;

export const SECTION_WORDS: Record<InboxSection, { tab: string; empty: string }> = {
  waiting: { tab: 'Waiting for you', empty: 'Nothing is waiting for your signature.' },
  sent: { tab: 'Sent by you or your agents', empty: 'Nothing you or your agents sent is in progress.' },
  completed: { tab: 'Completed', empty: 'No completed documents yet.' },
  closed: { tab: 'Declined, expired and voided', empty: 'No declined, expired or voided documents.' },
  all: { tab: 'All', empty: 'No documents yet.' },
};

const InboxQuerySchema = z.object({
  section: z.enum(INBOX_SECTIONS).default('waiting'),
  q: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(PAGE_SIZE),
  cursor: z.string().min(1).max(200).optional(),
});

/**
 * The principal's documents inbox (waiting for them, sent by them or their agents, completed,
 * declined/expired/voided), paged and searchable by name and counterparty; each document's page
 * (./document.ts); and the current sealed PDF to download (a completed one is the copy with its
 * certificate of completion).
 */
export function documentRoutes(router: Router, deps: Services, appPath: string): void {
  router.get(
    `${appPath}/documents`,
    pageHandler(appPath, 'Documents', async ({ ctx, principal, csrf }) => {
      const parsed = InboxQuerySchema.safeParse(ctx.query);
      if (!parsed.success) throw errors.invalidRequest('This list does not take these parameters.');
      const { section, q, cursor, limit } = parsed.data;
      const search = q?.trim() ?? '';
      const { items, next_cursor } = await inboxOf(deps.db, principal, { section, search, limit, cursor });
      const signers = items.length
        ? await DocumentSigner.query(deps.db)
            .whereIn(
              'document_id',
              items.map((document) => document.id),
            )
            .orderBy('position')
        : [];
      const me = normalizeEmail(principal.email);
      const query = (more: Record<string, string>) => {
        const params = new URLSearchParams({
          section,
          ...(search ? { q: search } : {}),
          ...(limit !== PAGE_SIZE ? { limit: String(limit) } : {}),
          ...more,
        });
        return `${appPath}/documents?${params}`;
      };

      const tabs = html`<nav class="tabs" aria-label="Sections" data-testid="inbox-sections">${INBOX_SECTIONS.map(
        (name) =>
          html`<a href="${appPath}/documents?section=${name}" data-section="${name}"${name === section && html` aria-current="page"`}>${SECTION_WORDS[name].tab}</a>`,
      )}</nav>`;
      const searchForm = html`<form method="get" action="${appPath}/documents" class="search" role="search" data-testid="inbox-search">
<input type="hidden" name="section" value="${section}">
<label for="inbox-q">Search by document name or counterparty (name or e-mail)</label>
<input id="inbox-q" name="q" type="search" maxlength="200" value="${search}">
<button type="submit">Search</button></form>`;

      const rows = items.map((document) => {
        const others = signers.filter((signer) => signer.document_id === document.id && signer.email !== me);
        const mine = signers.find((signer) => signer.document_id === document.id && signer.email === me);
        return {
          attrs: { 'data-document': document.id },
          cells: [
            html`<a href="${appPath}/documents/${document.id}" data-testid="document-link">${document.name}</a>`,
            html`<span class="badge ${document.status}">${document.status}</span>${
              mine?.status === 'pending' &&
              document.status === 'sent' &&
              html` <span class="badge pending" data-testid="your-signature">your signature</span>`
            }`,
            document.owner_principal_id === principal.id ? 'You or your agents sent it' : 'Sent to you',
            others.map((signer) => `${signer.name} <${signer.email}>`).join(', ') || '—',
            when(document.completed_at ?? document.sent_at ?? document.created_at),
          ],
        };
      });
      const list = items.length
        ? dataTable('documents', ['Document', 'Status', 'Direction', 'Counterparties', 'Last change'], rows)
        : html`<p class="muted" data-testid="inbox-empty">${search ? `No documents match “${search}” here.` : SECTION_WORDS[section].empty}</p>`;
      const more = next_cursor
        ? html`<p><a href="${query({ cursor: next_cursor })}" data-testid="next-page" rel="next">Older documents</a></p>`
        : '';
      const body = html`${tabs}${searchForm}<h2 data-testid="inbox-section">${SECTION_WORDS[section].tab}</h2>${list}${more}`;
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
  documentPageRoutes(router, deps, appPath);
}

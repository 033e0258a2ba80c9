import type Router from '@koa/router';
import { z } from 'zod';
import { normalizeEmail } from '../../../activities/accounts/accounts';
import { documentOfPrincipal, INBOX_SECTIONS, type InboxSection, inboxOf } from '../../../activities/documents/principal-documents';
import type { Services } from '../../../activities/services';
import { DocumentSigner } from '../../../db/models';
import { errors } from '../../../lib/errors';
import { t } from '../../../lib/i18n';
import { html } from '../../http/html';
import { sendPdf } from '../files';
import { renderPage, sendPage } from '../layout';
import { dataTable, nameWord, pageHandler, when } from './common';
import { documentPageRoutes } from './document';

const PAGE_SIZE = 20;

/** Each section's tab and what it says when empty: `app.documents.<section>.tab` and `.empty`. */
const sectionWords = (section: InboxSection) => ({
  tab: t(`app.documents.${section}.tab`),
  empty: t(`app.documents.${section}.empty`),
});

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
    pageHandler(appPath, 'app.documents.title', async ({ ctx, principal, csrf }) => {
      const parsed = InboxQuerySchema.safeParse(ctx.query);
      if (!parsed.success) throw errors.invalidRequest(t('app.documents.bad_query'));
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

      const tabs = html`<nav class="tabs" aria-label="${t('app.documents.sections')}" data-testid="inbox-sections">${INBOX_SECTIONS.map(
        (name) =>
          html`<a href="${appPath}/documents?section=${name}" data-section="${name}"${name === section && html` aria-current="page"`}>${sectionWords(name).tab}</a>`,
      )}</nav>`;
      const searchForm = html`<form method="get" action="${appPath}/documents" class="search" role="search" data-testid="inbox-search">
<input type="hidden" name="section" value="${section}">
<label for="inbox-q">${t('app.documents.search_label')}</label>
<input id="inbox-q" name="q" type="search" maxlength="200" value="${search}">
<button type="submit">${t('app.documents.search')}</button></form>`;

      const rows = items.map((document) => {
        const others = signers.filter((signer) => signer.document_id === document.id && signer.email !== me);
        const mine = signers.find((signer) => signer.document_id === document.id && signer.email === me);
        return {
          attrs: { 'data-document': document.id },
          cells: [
            html`<a href="${appPath}/documents/${document.id}" data-testid="document-link">${document.name}</a>`,
            html`<span class="badge ${document.status}">${nameWord('status', document.status)}</span>${
              mine?.status === 'pending' &&
              document.status === 'sent' &&
              html` <span class="badge pending" data-testid="your-signature">${t('app.documents.your_signature')}</span>`
            }`,
            t(document.owner_principal_id === principal.id ? 'app.documents.sent_by_you' : 'app.documents.sent_to_you'),
            others.map((signer) => `${signer.name} <${signer.email}>`).join(', ') || '—',
            when(document.completed_at ?? document.sent_at ?? document.created_at),
          ],
        };
      });
      const list = items.length
        ? dataTable(
            'documents',
            [
              t('app.documents.column.document'),
              t('app.documents.column.status'),
              t('app.documents.column.direction'),
              t('app.documents.column.counterparties'),
              t('app.documents.column.last_change'),
            ],
            rows,
          )
        : html`<p class="muted" data-testid="inbox-empty">${search ? t('app.documents.no_match', { search }) : sectionWords(section).empty}</p>`;
      const more = next_cursor
        ? html`<p><a href="${query({ cursor: next_cursor })}" data-testid="next-page" rel="next">${t('app.documents.older')}</a></p>`
        : '';
      const body = html`${tabs}${searchForm}<h2 data-testid="inbox-section">${sectionWords(section).tab}</h2>${list}${more}`;
      sendPage(
        ctx,
        renderPage({
          title: t('app.documents.title'),
          appPath,
          principal,
          csrf,
          flags: deps.config.flags.values,
          body,
          current: '/documents',
        }),
      );
    }),
  );
  router.get(
    `${appPath}/documents/:id/download`,
    pageHandler(appPath, 'app.documents.title', async ({ ctx, principal }) => {
      const document = await documentOfPrincipal(deps.db, principal, ctx.params.id);
      sendPdf(ctx, await deps.blobs.get(document.current_sha256), `${document.name}.pdf`, document.current_sha256);
    }),
  );
  documentPageRoutes(router, deps, appPath);
}

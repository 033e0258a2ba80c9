import type Router from '@koa/router';
import { keysOfPrincipal } from '../../../activities/accounts/accounts';
import { DAILY_L2_CAP, l2AppliesToday } from '../../../activities/apply/cap';
import { mandateStatus, mandatesOfPrincipal, revokeMandate } from '../../../activities/mandates/mandates';
import type { Services } from '../../../activities/services';
import type { Mandate } from '../../../db/models';
import { errors } from '../../../lib/errors';
import { t } from '../../../lib/i18n';
import { html, joinHtml } from '../../http/html';
import { hiddenCsrf, type PageOptions, renderPage, sendPage } from '../layout';
import { tHtml } from '../messages';
import { dataTable, nameWord, pageHandler, postedForm, principalActor, revokedWords, when } from './common';
import { LEVEL_WORDS, MODE_WORDS, ownMandate } from './mandate-common';
import { grantRoutes } from './mandate-grant';

// Where they always were for the pages that import them from here (stop, OAuth's consent).
export { LEVEL_WORDS, MODE_WORDS };

/** The principal's mandates: list, grant (mandate-grant.ts), revoke. */
export function mandateRoutes(router: Router, deps: Services, appPath: string): void {
  grantRoutes(router, deps, appPath);

  router.get(
    `${appPath}/mandates`,
    pageHandler(appPath, 'app.mandates.title', async ({ ctx, principal, csrf }) => {
      const [mandates, keys] = await Promise.all([mandatesOfPrincipal(deps.db, principal.id), keysOfPrincipal(deps.db, principal.id)]);
      const keyOf = new Map(keys.map((key) => [key.id, key]));
      const rows = await Promise.all(
        mandates.map(async (mandate) => {
          const status = mandateStatus(mandate);
          const key = keyOf.get(mandate.api_key_id);
          const today =
            mandate.confirmation_level === 'L2' && status === 'active'
              ? t('app.mandates.today', { used: await l2AppliesToday(deps.db, mandate.id), cap: DAILY_L2_CAP })
              : '—';
          const actions = [
            status === 'pending' &&
              html`<a href="${appPath}/mandates/${mandate.id}/confirm" data-testid="mandate-enter-code">${t('app.mandates.enter_code')}</a>`,
            mandate.credential_jws &&
              html`<a href="${appPath}/mandates/${mandate.id}/credential" data-testid="mandate-credential" download="${mandate.id}.jwt">${t('app.mandates.credential')}</a>`,
            (status === 'pending' || status === 'active') &&
              html`<a href="${appPath}/mandates/${mandate.id}/revoke" class="danger-link" data-testid="mandate-revoke">${t(status === 'pending' ? 'app.mandates.cancel' : 'app.mandates.revoke')}</a>`,
          ].filter(Boolean);
          return {
            attrs: { 'data-testid': 'mandate-row', 'data-mandate-id': mandate.id },
            cells: [
              mandate.name,
              html`${key?.label ?? ''} ${key?.kind === 'oauth' ? t('app.mandates.connected_app') : html`<code>${key?.prefix ?? ''}…</code>`}${key?.revoked_at && ` ${t('app.mandates.revoked_key')}`}`,
              html`<abbr title="${LEVEL_WORDS[mandate.confirmation_level]}">${nameWord('level', mandate.confirmation_level)}</abbr>`,
              MODE_WORDS[mandate.mode],
              when(mandate.expires_at, t('app.mandates.no_expiry')),
              html`<span class="badge ${status}" data-testid="mandate-status">${nameWord('status', status)}</span>${status === 'revoked' && html` ${revokedWords(mandate.revoked_at, mandate.revoked_via)}`}`,
              today,
              joinHtml(actions, ' '),
            ],
          };
        }),
      );
      const table = rows.length
        ? dataTable(
            'mandates',
            [
              ...(['name', 'key', 'level', 'covers', 'expires', 'status', 'today'] as const).map((column) =>
                t(`app.mandates.column.${column}`),
              ),
              '',
            ],
            rows,
          )
        : html`<p class="muted" data-testid="no-mandates">${t('app.mandates.none')}</p>`;
      const levels = (['L1', 'L2'] as const).map(
        (level) =>
          html`<li>${tHtml('app.mandates.level_line', { level: html`<strong>${nameWord('level', level)}</strong>`, words: LEVEL_WORDS[level] })}</li>`,
      );
      const body = html`<p>${t('app.mandates.intro')}</p>
<ul>${levels}</ul>
<p><a class="button primary" href="${appPath}/mandates/new" data-testid="grant-mandate">${t('app.mandates.grant')}</a></p>${table}`;
      sendPage(
        ctx,
        renderPage({
          title: t('app.mandates.title'),
          appPath,
          principal,
          csrf,
          flags: deps.config.flags.values,
          body,
          notice: listNotice(ctx.query, mandates, keyOf),
          current: '/mandates',
        }),
      );
    }),
  );

  router.get(
    `${appPath}/mandates/:id/revoke`,
    pageHandler(appPath, 'app.mandates.revoke_title', async ({ ctx, principal, csrf }) => {
      const mandate = await ownMandate(deps, principal, ctx.params.id);
      const status = mandateStatus(mandate);
      const body =
        status === 'revoked'
          ? html`<p>${tHtml('app.mandates.was_revoked', { name: mandate.name, when: revokedWords(mandate.revoked_at, mandate.revoked_via) })}</p><p><a href="${appPath}/mandates">${t('app.mandates.back')}</a></p>`
          : html`<p>${tHtml('app.mandates.revoke_question', { level: nameWord('level', mandate.confirmation_level), name: html`<strong>${mandate.name}</strong>` })}</p>
<ul><li>${t('app.mandates.revoke_now')}</li>
<li>${tHtml('app.mandates.revoke_scope', { scope: html`<code>documents:sign</code>` })}</li>
<li>${tHtml('app.mandates.revoke_kept', { kept: html`<strong>${t('app.mandates.revoke_kept_strong')}</strong>` })}</li></ul>
<form method="post" action="${appPath}/mandates/${mandate.id}/revoke" class="actions">${hiddenCsrf(csrf)}<button type="submit" class="danger" data-testid="mandate-revoke-confirm">${t('app.mandates.revoke_confirm')}</button><a class="button" href="${appPath}/mandates">${t('app.mandates.keep')}</a></form>`;
      sendPage(
        ctx,
        renderPage({
          title: t('app.mandates.revoke_title'),
          appPath,
          principal,
          csrf,
          flags: deps.config.flags.values,
          body,
          current: '/mandates',
        }),
      );
    }),
  );

  // The mandate's verifiable credential (a compact JWS, docs/receipts.md), to hand to a counterparty.
  router.get(
    `${appPath}/mandates/:id/credential`,
    pageHandler(appPath, 'app.mandates.credential_title', async ({ ctx, principal }) => {
      const mandate = await ownMandate(deps, principal, ctx.params.id);
      if (!mandate.credential_jws) throw errors.notFound(t('app.mandates.no_credential'));
      ctx.type = 'application/jwt';
      ctx.set('Content-Disposition', `attachment; filename="${mandate.id}.jwt"`);
      ctx.body = mandate.credential_jws;
    }),
  );

  router.post(
    `${appPath}/mandates/:id/revoke`,
    pageHandler(appPath, 'app.mandates.revoke_title', async ({ ctx, principal }) => {
      await postedForm(ctx, deps);
      const mandate = await revokeMandate(deps.db, principal, ctx.params.id, principalActor(ctx, principal));
      ctx.redirect(`${appPath}/mandates?done=revoked&mandate=${encodeURIComponent(mandate.id)}`);
    }),
  );
}

/** After a grant or a revoke, what happened, in the mandate's own words. */
function listNotice(query: Record<string, unknown>, mandates: Mandate[], keyOf: Map<string, { label: string }>): PageOptions['notice'] {
  const mandate = mandates.find((candidate) => candidate.id === query.mandate);
  if (!mandate) return undefined;
  const key = keyOf.get(mandate.api_key_id)?.label ?? '';
  if (query.done === 'granted' && mandate.status === 'active') {
    return {
      kind: 'ok',
      text: t('app.mandates.granted_notice', {
        level: nameWord('level', mandate.confirmation_level),
        name: mandate.name,
        key,
        covers: MODE_WORDS[mandate.mode],
      }),
    };
  }
  if (query.done === 'revoked' && mandate.status === 'revoked') {
    return {
      kind: 'ok',
      text: t('app.mandates.revoked_notice', { name: mandate.name, key }),
    };
  }
  return undefined;
}

import type Router from '@koa/router';
import type { Context } from 'koa';
import { createOwnKey, keysOfPrincipal, revokeOwnKey, SIGN_SCOPE } from '../../../activities/accounts/accounts';
import { permits } from '../../../activities/accounts/authorize';
import { clientsById, redirectHosts } from '../../../activities/oauth/clients';
import type { Services } from '../../../activities/services';
import { type ApiKey, type Plan, type Principal, Tenant } from '../../../db/models';
import { errors, type ServiceError } from '../../../lib/errors';
import { t } from '../../../lib/i18n';
import { html, joinHtml, type SafeHtml } from '../../http/html';
import { hiddenCsrf, type PageOptions, renderPage, sendPage } from '../layout';
import { tHtml } from '../messages';
import {
  dataTable,
  formErrors,
  nameWord,
  noticeFrom,
  pageHandler,
  postedForm,
  principalActor,
  refusal,
  revokedWords,
  when,
} from './common';

const TITLE = 'app.keys.title';

function scopeList(scopes: string[]): SafeHtml {
  return joinHtml(
    scopes.map((scope) => html`<code class="${scope === SIGN_SCOPE ? 'scope sign' : 'scope'}">${scope}</code>`),
    ' ',
  );
}

/** A key's or a connected app's status badge, and its revoke link while it is active. */
function statusCells(appPath: string, key: ApiKey, revokeTestId: string): [SafeHtml, SafeHtml | false] {
  if (key.revoked_at)
    return [html`<span class="badge revoked">${t('app.status.revoked')}</span> ${revokedWords(key.revoked_at, key.revoked_via)}`, false];
  return [
    html`<span class="badge active">${t('app.status.active')}</span>`,
    html`<a href="${appPath}/keys/${key.id}/revoke" class="danger-link" data-testid="${revokeTestId}">${t('app.keys.revoke')}</a>`,
  ];
}

function keyRows(appPath: string, keys: ApiKey[]): SafeHtml {
  if (keys.length === 0) return html`<p class="muted" data-testid="no-keys">${t('app.keys.none')}</p>`;
  const rows = keys.map((key) => {
    const [status, action] = statusCells(appPath, key, 'revoke-key');
    return {
      attrs: { 'data-testid': 'key-row', 'data-key-id': key.id },
      cells: [
        key.label,
        html`<code>${key.prefix}…</code>`,
        when(key.created_at),
        when(key.last_used_at, t('app.keys.never')),
        status,
        scopeList(key.scopes),
        action,
      ],
    };
  });
  const columns = ['label', 'key', 'created', 'last_used', 'status', 'scopes'] as const;
  return dataTable('keys', [...columns.map((column) => t(`app.keys.column.${column}`)), ''], rows);
}

/** The principal's connected apps (OAuth clients they approved): each is a key row of kind `oauth`. */
function connectedAppRows(appPath: string, apps: ApiKey[], redirectHosts: Map<string, string>): SafeHtml {
  if (apps.length === 0) return html``;
  const rows = apps.map((app) => {
    const [status, action] = statusCells(appPath, app, 'revoke-app');
    return {
      attrs: { 'data-testid': 'connected-app-row', 'data-key-id': app.id },
      cells: [
        app.label,
        html`<code>${redirectHosts.get(app.oauth_client_id ?? '') ?? ''}</code>`,
        scopeList(app.scopes),
        when(app.created_at),
        when(app.last_used_at, t('app.keys.never')),
        status,
        action,
      ],
    };
  });
  const columns = ['app', 'redirects', 'scopes', 'connected', 'last_used', 'status'] as const;
  return html`<section aria-labelledby="apps-title"><h2 id="apps-title">${t('app.keys.apps_title')}</h2>
<p>${t('app.keys.apps_intro')}</p>
${dataTable('connected-apps', [...columns.map((column) => t(`app.keys.column.${column}`)), ''], rows)}</section>`;
}

function createForm(appPath: string, csrf: string, plan: Plan, label: string, error?: ServiceError): SafeHtml {
  if (!permits({ tenant: { plan } }, { plan: 'keys' })) {
    return html`<section class="card" aria-labelledby="create-title" data-testid="plan-required"><h2 id="create-title">${t('app.keys.create_title')}</h2>
${formErrors(error)}<p>${tHtml('app.keys.plan_required', {
      business: html`<strong>${t('app.keys.plan_business')}</strong>`,
      plan: html`<strong>${nameWord('plan', plan)}</strong>`,
    })}</p></section>`;
  }
  return html`<section class="card" aria-labelledby="create-title"><h2 id="create-title">${t('app.keys.create_title')}</h2>
<form method="post" action="${appPath}/keys" class="stack" data-testid="create-key-form">${hiddenCsrf(csrf)}${formErrors(error)}
<label for="key-label">${t('app.keys.column.label')}</label>
<input id="key-label" name="label" required maxlength="200" value="${label}" aria-describedby="key-label-help" data-testid="key-label">
<p id="key-label-help" class="hint">${t('app.keys.label_help')}</p>
<p class="hint">${tHtml('app.keys.scopes_help', { scope: html`<code>${SIGN_SCOPE}</code>` })}</p>
<div><button type="submit" class="primary" data-testid="create-key">${t('app.keys.create')}</button></div></form></section>`;
}

async function redirectHostsOf(db: Services['db'], apps: ApiKey[]): Promise<Map<string, string>> {
  const ids = [...new Set(apps.map((app) => app.oauth_client_id).filter((id): id is string => Boolean(id)))];
  const clients = await clientsById(db, ids);
  return new Map(clients.map((client) => [client.id, redirectHosts(client.redirect_uris)]));
}

/** The principal's own API keys: list, create (the raw key is shown once), revoke. */
export function keyRoutes(router: Router, deps: Services, appPath: string): void {
  async function send(
    ctx: Context,
    principal: Principal,
    csrf: string,
    options: { notice?: PageOptions['notice']; label?: string; error?: ServiceError; status?: number } = {},
  ) {
    const [tenant, all] = await Promise.all([Tenant.query(deps.db).findById(principal.tenant_id), keysOfPrincipal(deps.db, principal.id)]);
    const keys = all.filter((key) => key.kind !== 'oauth');
    const apps = all.filter((key) => key.kind === 'oauth');
    const body = html`<p>${tHtml('app.keys.intro', { header: html`<code>Authorization: Bearer …</code>` })}</p>
${keyRows(appPath, keys)}${connectedAppRows(appPath, apps, await redirectHostsOf(deps.db, apps))}${createForm(appPath, csrf, tenant!.plan, options.label ?? '', options.error)}`;
    sendPage(
      ctx,
      renderPage({
        title: t(TITLE),
        appPath,
        principal,
        csrf,
        flags: deps.config.flags.values,
        body,
        notice: options.notice,
        current: '/keys',
      }),
      options.status ?? 200,
    );
  }

  async function ownKey(principal: Principal, id: string): Promise<ApiKey> {
    const key = (await keysOfPrincipal(deps.db, principal.id)).find((candidate) => candidate.id === id);
    if (!key) throw errors.notFound(t('app.keys.not_found'));
    return key;
  }

  router.get(
    `${appPath}/keys`,
    pageHandler(appPath, TITLE, async ({ ctx, principal, csrf }) => {
      await send(ctx, principal, csrf, {
        notice: noticeFrom(ctx, {
          revoked: t('app.keys.revoked_notice'),
        }),
      });
    }),
  );

  router.post(
    `${appPath}/keys`,
    pageHandler(appPath, TITLE, async ({ ctx, principal, csrf }) => {
      let label = '';
      try {
        const { fields } = await postedForm(ctx, deps);
        label = (fields.label ?? '').trim();
        const { apiKey, secret } = await createOwnKey(deps.db, principal, label, principalActor(ctx, principal));
        const body = html`<div class="card key-once" data-testid="key-created">
<p>${tHtml('app.keys.copy_now', { now: html`<strong>${t('app.keys.copy_now_strong')}</strong>` })}</p>
<p class="key-line"><code id="new-key" data-testid="new-key">${secret}</code> <button type="button" data-copy="new-key" hidden>${t('app.keys.copy')}</button></p>
<p role="status" class="hint" data-copy-status></p>
<dl class="facts"><dt>${t('app.keys.column.label')}</dt><dd>${apiKey.label}</dd><dt>${t('app.keys.shown_as')}</dt><dd><code>${apiKey.prefix}…</code></dd><dt>${t('app.keys.column.scopes')}</dt><dd>${joinHtml(
          apiKey.scopes.map((scope) => html`<code class="scope">${scope}</code>`),
          ' ',
        )}</dd></dl>
<p>${tHtml('app.keys.grant', { link: html`<a href="${appPath}/mandates/new?key=${apiKey.id}">${t('app.keys.grant_link')}</a>` })}</p></div>
<p><a href="${appPath}/keys">${t('app.keys.back')}</a></p>`;
        sendPage(
          ctx,
          renderPage({
            title: t('app.keys.new_title'),
            appPath,
            principal,
            csrf,
            flags: deps.config.flags.values,
            body,
            scripts: ['/static/app.js'],
            current: '/keys',
          }),
          201,
        );
      } catch (error) {
        const refused = refusal(error);
        await send(ctx, principal, csrf, { label, error: refused, status: refused.status });
      }
    }),
  );

  router.get(
    `${appPath}/keys/:id/revoke`,
    pageHandler(appPath, 'app.keys.revoke_title', async ({ ctx, principal, csrf }) => {
      const key = await ownKey(principal, ctx.params.id);
      const body = key.revoked_at
        ? html`<p>${tHtml('app.keys.was_revoked', { label: key.label, when: revokedWords(key.revoked_at, key.revoked_via) })}</p><p><a href="${appPath}/keys">${t('app.keys.back')}</a></p>`
        : html`<p>${tHtml('app.keys.revoke_question', { label: html`<strong>${key.label}</strong>`, prefix: html`<code>${key.prefix}…</code>` })}</p>
<ul><li>${tHtml('app.keys.revoke_401', { status: html`<code>401</code>` })}</li><li>${t('app.keys.revoke_mandates')}</li></ul>
<form method="post" action="${appPath}/keys/${key.id}/revoke" class="actions">${hiddenCsrf(csrf)}<button type="submit" class="danger" data-testid="revoke-confirm">${t('app.keys.revoke_confirm')}</button><a href="${appPath}/keys" class="button">${t('app.keys.cancel')}</a></form>`;
      sendPage(
        ctx,
        renderPage({
          title: t('app.keys.revoke_title'),
          appPath,
          principal,
          csrf,
          flags: deps.config.flags.values,
          body,
          current: '/keys',
        }),
      );
    }),
  );

  router.post(
    `${appPath}/keys/:id/revoke`,
    pageHandler(appPath, 'app.keys.revoke_title', async ({ ctx, principal }) => {
      await postedForm(ctx, deps);
      await revokeOwnKey(deps.db, principal, ctx.params.id, principalActor(ctx, principal));
      ctx.redirect(`${appPath}/keys?done=revoked`);
    }),
  );
}

import type Router from '@koa/router';
import type { Context } from 'koa';
import { createOwnKey, keysOfPrincipal, revokeOwnKey, SIGN_SCOPE } from '../../../activities/accounts/accounts';
import { permits } from '../../../activities/accounts/authorize';
import { clientsById, redirectHosts } from '../../../activities/oauth/clients';
import type { Services } from '../../../activities/services';
import { type ApiKey, type Plan, type Principal, Tenant } from '../../../db/models';
import { errors, type ServiceError } from '../../../lib/errors';
import { html, joinHtml, type SafeHtml } from '../../http/html';
import { hiddenCsrf, type PageOptions, renderPage, sendPage } from '../layout';
import { dataTable, formErrors, noticeFrom, pageHandler, postedForm, principalActor, refusal, revokedWords, when } from './common';

const TITLE = 'API keys';

function scopeList(scopes: string[]): SafeHtml {
  return joinHtml(
    scopes.map((scope) => html`<code class="${scope === SIGN_SCOPE ? 'scope sign' : 'scope'}">${scope}</code>`),
    ' ',
  );
}

/** A key's or a connected app's status badge, and its revoke link while it is active. */
function statusCells(appPath: string, key: ApiKey, revokeTestId: string): [SafeHtml, SafeHtml | false] {
  if (key.revoked_at) return [html`<span class="badge revoked">revoked</span> ${revokedWords(key.revoked_at, key.revoked_via)}`, false];
  return [
    html`<span class="badge active">active</span>`,
    html`<a href="${appPath}/keys/${key.id}/revoke" class="danger-link" data-testid="${revokeTestId}">Revoke</a>`,
  ];
}

function keyRows(appPath: string, keys: ApiKey[]): SafeHtml {
  if (keys.length === 0) return html`<p class="muted" data-testid="no-keys">You have no API keys yet.</p>`;
  const rows = keys.map((key) => {
    const [status, action] = statusCells(appPath, key, 'revoke-key');
    return {
      attrs: { 'data-testid': 'key-row', 'data-key-id': key.id },
      cells: [
        key.label,
        html`<code>${key.prefix}…</code>`,
        when(key.created_at),
        when(key.last_used_at, 'never'),
        status,
        scopeList(key.scopes),
        action,
      ],
    };
  });
  return dataTable('keys', ['Label', 'Key', 'Created', 'Last used', 'Status', 'Scopes', ''], rows);
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
        when(app.last_used_at, 'never'),
        status,
        action,
      ],
    };
  });
  return html`<section aria-labelledby="apps-title"><h2 id="apps-title">Connected apps</h2>
<p>Apps you allowed to act for you by signing in here (OAuth). They act like a key: grant one a mandate to let it sign.</p>
${dataTable('connected-apps', ['App', 'Redirects to', 'Scopes', 'Connected', 'Last used', 'Status', ''], rows)}</section>`;
}

function createForm(appPath: string, csrf: string, plan: Plan, label: string, error?: ServiceError): SafeHtml {
  if (!permits({ tenant: { plan } }, { plan: 'keys' })) {
    return html`<section class="card" aria-labelledby="create-title" data-testid="plan-required"><h2 id="create-title">Create a key</h2>
${formErrors(error)}<p>API keys need the <strong>Business</strong> plan or higher. Your account is on <strong>${plan}</strong>, so agents cannot use the API yet and no key can be created here.</p></section>`;
  }
  return html`<section class="card" aria-labelledby="create-title"><h2 id="create-title">Create a key</h2>
<form method="post" action="${appPath}/keys" class="stack" data-testid="create-key-form">${hiddenCsrf(csrf)}${formErrors(error)}
<label for="key-label">Label</label>
<input id="key-label" name="label" required maxlength="200" value="${label}" aria-describedby="key-label-help" data-testid="key-label">
<p id="key-label-help" class="hint">Name the agent that will use it, so you can tell your keys apart (for example “invoice bot”).</p>
<p class="hint">A new key can read and write documents, templates, contacts, offers, transfers and webhooks. It cannot sign: only a mandate you grant adds <code>${SIGN_SCOPE}</code>.</p>
<div><button type="submit" class="primary" data-testid="create-key">Create key</button></div></form></section>`;
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
    const body = html`<p>Agents call the API with one of these keys in <code>Authorization: Bearer …</code>. Each acts for you; none is ever a party to a document.</p>
${keyRows(appPath, keys)}${connectedAppRows(appPath, apps, await redirectHostsOf(deps.db, apps))}${createForm(appPath, csrf, tenant!.plan, options.label ?? '', options.error)}`;
    sendPage(
      ctx,
      renderPage({
        title: TITLE,
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
    if (!key) throw errors.notFound('No such API key of yours.');
    return key;
  }

  router.get(
    `${appPath}/keys`,
    pageHandler(appPath, TITLE, async ({ ctx, principal, csrf }) => {
      await send(ctx, principal, csrf, {
        notice: noticeFrom(ctx, {
          revoked: 'The key is revoked: it answers 401 from now on, and every mandate it held is revoked with it.',
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
<p><strong>Copy this key now.</strong> It is shown only this once: we keep only its SHA-256, so nobody (not even us) can show it again. If you lose it, revoke it and create another.</p>
<p class="key-line"><code id="new-key" data-testid="new-key">${secret}</code> <button type="button" data-copy="new-key" hidden>Copy</button></p>
<p role="status" class="hint" data-copy-status></p>
<dl class="facts"><dt>Label</dt><dd>${apiKey.label}</dd><dt>Shown later as</dt><dd><code>${apiKey.prefix}…</code></dd><dt>Scopes</dt><dd>${joinHtml(
          apiKey.scopes.map((scope) => html`<code class="scope">${scope}</code>`),
          ' ',
        )}</dd></dl>
<p>To let this key sign for you, <a href="${appPath}/mandates/new?key=${apiKey.id}">grant it a mandate</a>.</p></div>
<p><a href="${appPath}/keys">Back to your keys</a></p>`;
        sendPage(
          ctx,
          renderPage({
            title: 'Your new API key',
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
    pageHandler(appPath, 'Revoke an API key', async ({ ctx, principal, csrf }) => {
      const key = await ownKey(principal, ctx.params.id);
      const body = key.revoked_at
        ? html`<p>The key “${key.label}” was revoked ${revokedWords(key.revoked_at, key.revoked_via)}.</p><p><a href="${appPath}/keys">Back to your keys</a></p>`
        : html`<p>Revoke the key “<strong>${key.label}</strong>” (<code>${key.prefix}…</code>)?</p>
<ul><li>Every agent using it gets <code>401</code> from then on; this cannot be undone.</li><li>Every mandate granted to it is revoked with it, and offers it made can no longer be accepted. Documents already signed stay signed.</li></ul>
<form method="post" action="${appPath}/keys/${key.id}/revoke" class="actions">${hiddenCsrf(csrf)}<button type="submit" class="danger" data-testid="revoke-confirm">Revoke the key</button><a href="${appPath}/keys" class="button">Cancel</a></form>`;
      sendPage(
        ctx,
        renderPage({ title: 'Revoke an API key', appPath, principal, csrf, flags: deps.config.flags.values, body, current: '/keys' }),
      );
    }),
  );

  router.post(
    `${appPath}/keys/:id/revoke`,
    pageHandler(appPath, 'Revoke an API key', async ({ ctx, principal }) => {
      await postedForm(ctx, deps);
      await revokeOwnKey(deps.db, principal, ctx.params.id, principalActor(ctx, principal));
      ctx.redirect(`${appPath}/keys?done=revoked`);
    }),
  );
}

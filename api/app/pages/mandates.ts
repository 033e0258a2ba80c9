import type Router from '@koa/router';
import { keysOfPrincipal } from '../../../activities/accounts/accounts';
import { mandateStatus, mandatesOfPrincipal, revokeMandate } from '../../../activities/mandates/mandates';
import type { Services } from '../../../activities/services';
import { DAILY_L2_CAP, l2AppliesToday } from '../../../activities/signing/cap';
import type { Mandate } from '../../../db/models';
import { errors } from '../../../lib/errors';
import { html, joinHtml } from '../../http/html';
import { hiddenCsrf, type PageOptions, renderPage, sendPage } from '../layout';
import { dataTable, pageHandler, postedForm, principalActor, revokedWords, when } from './common';
import { LEVEL_WORDS, MODE_WORDS, ownMandate } from './mandate-common';
import { grantRoutes } from './mandate-grant';

// Where they always were for the pages that import them from here (stop, OAuth's consent).
export { LEVEL_WORDS, MODE_WORDS };

/** The principal's mandates: list, grant (mandate-grant.ts), revoke. */
export function mandateRoutes(router: Router, deps: Services, appPath: string): void {
  grantRoutes(router, deps, appPath);

  router.get(
    `${appPath}/mandates`,
    pageHandler(appPath, 'Mandates', async ({ ctx, principal, csrf }) => {
      const [mandates, keys] = await Promise.all([mandatesOfPrincipal(deps.db, principal.id), keysOfPrincipal(deps.db, principal.id)]);
      const keyOf = new Map(keys.map((key) => [key.id, key]));
      const rows = await Promise.all(
        mandates.map(async (mandate) => {
          const status = mandateStatus(mandate);
          const key = keyOf.get(mandate.api_key_id);
          const today =
            mandate.confirmation_level === 'L2' && status === 'active'
              ? `${await l2AppliesToday(deps.db, mandate.id)} of ${DAILY_L2_CAP}`
              : '—';
          const actions = [
            status === 'pending' &&
              html`<a href="${appPath}/mandates/${mandate.id}/confirm" data-testid="mandate-enter-code">Enter the code</a>`,
            mandate.credential_jws &&
              html`<a href="${appPath}/mandates/${mandate.id}/credential" data-testid="mandate-credential" download="${mandate.id}.jwt">Credential</a>`,
            (status === 'pending' || status === 'active') &&
              html`<a href="${appPath}/mandates/${mandate.id}/revoke" class="danger-link" data-testid="mandate-revoke">${status === 'pending' ? 'Cancel' : 'Revoke'}</a>`,
          ].filter(Boolean);
          return {
            attrs: { 'data-testid': 'mandate-row', 'data-mandate-id': mandate.id },
            cells: [
              mandate.name,
              html`${key?.label ?? ''} ${key?.kind === 'oauth' ? '(connected app)' : html`<code>${key?.prefix ?? ''}…</code>`}${key?.revoked_at ? ' (revoked key)' : ''}`,
              html`<abbr title="${LEVEL_WORDS[mandate.confirmation_level]}">${mandate.confirmation_level}</abbr>`,
              MODE_WORDS[mandate.mode],
              when(mandate.expires_at, 'no expiry'),
              html`<span class="badge ${status}" data-testid="mandate-status">${status}</span>${status === 'revoked' && html` ${revokedWords(mandate.revoked_at, mandate.revoked_via)}`}`,
              today,
              joinHtml(actions, ' '),
            ],
          };
        }),
      );
      const table = rows.length
        ? dataTable('mandates', ['Name', 'API key', 'Level', 'Covers', 'Expires', 'Status', 'L2 today', ''], rows)
        : html`<p class="muted" data-testid="no-mandates">You have granted no mandates: no agent can sign for you.</p>`;
      const body = html`<p>A mandate lets one of your API keys apply your stored signature for you, within limits you choose. It is not a signature itself, and the key never becomes a party to a document.</p>
<ul><li><strong>L1</strong>: ${LEVEL_WORDS.L1}.</li><li><strong>L2</strong>: ${LEVEL_WORDS.L2}.</li></ul>
<p><a class="button primary" href="${appPath}/mandates/new" data-testid="grant-mandate">Grant a mandate</a></p>${table}`;
      sendPage(
        ctx,
        renderPage({
          title: 'Mandates',
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
    pageHandler(appPath, 'Revoke a mandate', async ({ ctx, principal, csrf }) => {
      const mandate = await ownMandate(deps, principal, ctx.params.id);
      const status = mandateStatus(mandate);
      const body =
        status === 'revoked'
          ? html`<p>The mandate “${mandate.name}” was revoked ${revokedWords(mandate.revoked_at, mandate.revoked_via)}.</p><p><a href="${appPath}/mandates">Back to your mandates</a></p>`
          : html`<p>Revoke the ${mandate.confirmation_level} mandate “<strong>${mandate.name}</strong>”?</p>
<ul><li>Its key can no longer sign for you, from this moment; open confirmation requests under it can no longer be applied.</li>
<li>When it is the key’s last active mandate, the scope <code>documents:sign</code> is removed from the key.</li>
<li><strong>Documents already completed stay signed</strong>: revoking does not undo them.</li></ul>
<form method="post" action="${appPath}/mandates/${mandate.id}/revoke" class="actions">${hiddenCsrf(csrf)}<button type="submit" class="danger" data-testid="mandate-revoke-confirm">Revoke the mandate</button><a class="button" href="${appPath}/mandates">Keep it</a></form>`;
      sendPage(
        ctx,
        renderPage({ title: 'Revoke a mandate', appPath, principal, csrf, flags: deps.config.flags.values, body, current: '/mandates' }),
      );
    }),
  );

  // The mandate's verifiable credential (a compact JWS, docs/receipts.md), to hand to a counterparty.
  router.get(
    `${appPath}/mandates/:id/credential`,
    pageHandler(appPath, 'Mandate credential', async ({ ctx, principal }) => {
      const mandate = await ownMandate(deps, principal, ctx.params.id);
      if (!mandate.credential_jws) throw errors.notFound('This mandate was granted before mandates had credentials.');
      ctx.type = 'application/jwt';
      ctx.set('Content-Disposition', `attachment; filename="${mandate.id}.jwt"`);
      ctx.body = mandate.credential_jws;
    }),
  );

  router.post(
    `${appPath}/mandates/:id/revoke`,
    pageHandler(appPath, 'Revoke a mandate', async ({ ctx, principal }) => {
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
      text: `The ${mandate.confirmation_level} mandate “${mandate.name}” is active: the key “${key}” now has the scope documents:sign and may sign ${MODE_WORDS[mandate.mode]}.`,
    };
  }
  if (query.done === 'revoked' && mandate.status === 'revoked') {
    return {
      kind: 'ok',
      text: `The mandate “${mandate.name}” is revoked: the key “${key}” can no longer sign with it. Documents already completed stay signed.`,
    };
  }
  return undefined;
}

import type Router from '@koa/router';
import type { Context } from 'koa';
import { normalizeEmail } from '../../../activities/accounts/accounts';
import type { Services } from '../../../activities/services';
import { acceptTransfer, bindBySession, publicClaim, publicDownloads } from '../../../activities/transfers/claims';
import { blockedWords, type TransferDeps, type TransferView } from '../../../activities/transfers/transfers';
import { Document, type TransferRecipient } from '../../../db/models';
import { errors } from '../../../lib/errors';
import { t } from '../../../lib/i18n';
import { html, type SafeHtml } from '../../http/html';
import { actorFrom } from '../../http/request';
import { readForm } from '../forms';
import { APP_CSP, hiddenCsrf, renderPage, sendPage } from '../layout';
import { tHtml } from '../messages';
import { appState, checkOrigin, MAX_NEXT } from '../session';
import { dataTable, type Notice, noticeFrom, postedForm, principalActor, refusal, when } from './common';

/** The one page every token that opens nothing gets: never existed, cancelled, malformed alike. */
const INVALID = () => t('sign.claim.invalid.title');

/** The notices after a redirect, in the request's locale. */
const notices = () => ({ accepted: t('sign.claim.notice.accepted'), bound: t('sign.claim.notice.bound') });

/** A size as people read it (1024-based), the exact count of bytes beside it. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return t('sign.size.bytes', { count: bytes, bytes: String(bytes) });
  const units = ['KB', 'MB', 'GB', 'TB'] as const;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return t(`sign.size.${units[unit]}`, { value: value < 10 ? value.toFixed(1) : String(Math.round(value)) });
}

/** What unlocks the files, in plain words. */
function modeWords(view: TransferView, document: Document | undefined): SafeHtml {
  switch (view.transfer.mode) {
    case 'share':
      return html`${t('sign.claim.mode.share')}`;
    case 'sign':
      return html`${document ? t('sign.claim.mode.sign_named', { document: document.name }) : t('sign.claim.mode.sign')}`;
    case 'accept':
      return html`${t('sign.claim.mode.accept')}`;
  }
}

/** Where the package stands: ready, blocked for good (with why), or waiting (and for what). */
function stateWords(view: TransferView, blocked: string | undefined): SafeHtml {
  const { transfer, recipients } = view;
  if (transfer.status === 'released') return html`<span class="badge active">${t('sign.claim.state.ready')}</span>`;
  if (blocked)
    return html`<span class="badge revoked">${t('sign.claim.state.blocked')}</span> ${blocked} ${t('sign.claim.state.blocked_next')}`;
  const accepted = recipients.filter((recipient) => recipient.accepted_at).length;
  const why =
    transfer.mode === 'accept'
      ? t('sign.claim.state.waiting_accept', { accepted, total: recipients.length })
      : transfer.mode === 'sign'
        ? t('sign.claim.state.waiting_sign')
        : t('sign.claim.state.waiting_share');
  return html`<span class="badge pending">${t('sign.claim.state.waiting')}</span> ${why}`;
}

/**
 * The claim page of a transfer's recipient (the e-mailed claim_url): no API key and no sign-in needed,
 * the token in the link is the capability. It shows what is offered and where it stands, accepts,
 * and hands each file out as a short-lived signed URL (a 303 on a button: the page holds no file URL).
 * A principal signed in with the recipient's e-mail can add the package to their account.
 */
export function claimRoutes(router: Router, deps: Services, appPath: string): void {
  const rules: TransferDeps = deps;
  const flags = deps.config.flags.values;
  const base = `${appPath}/claim/:token`;
  const pathOf = (ctx: Context) => `${appPath}/claim/${ctx.params.token}`;
  // A Download button's post is answered with a redirect to the signed URL at SVC_PUBLIC_URL, which
  // form-action must allow when that is another origin than the app's.
  const publicOrigin = new URL(deps.config.publicUrl).origin;
  const csp =
    publicOrigin === new URL(deps.config.appUrl).origin
      ? APP_CSP
      : APP_CSP.replace("form-action 'self'", `form-action 'self' ${publicOrigin}`);
  const send = (ctx: Context, markup: SafeHtml, status: number) => {
    sendPage(ctx, markup, status);
    ctx.set('Content-Security-Policy', csp);
  };

  /** With the navigation when a principal is signed in; a guest's page has none. */
  function page(ctx: Context, title: string, body: SafeHtml, notice?: Notice): SafeHtml {
    const { principal, csrf } = appState(ctx);
    return principal ? renderPage({ title, appPath, principal, flags, csrf, body, notice }) : renderPage({ title, appPath, body, notice });
  }

  function invalid(ctx: Context): void {
    const body = html`<p data-testid="claim-invalid">${t('sign.claim.invalid.text')}</p>`;
    send(ctx, page(ctx, INVALID(), body), 404);
  }

  function actions(ctx: Context, view: TransferView, recipient: TransferRecipient): SafeHtml {
    const { principal, csrf } = appState(ctx);
    const link = pathOf(ctx);
    const { transfer } = view;
    const accept =
      transfer.mode === 'accept' &&
      (recipient.accepted_at
        ? html`<p data-testid="claim-you-accepted">${tHtml('sign.claim.you_accepted', { at: when(recipient.accepted_at) })}</p>`
        : transfer.status === 'offered' &&
          html`<p>${t('sign.claim.accept.hint')}</p>
<form method="post" action="${link}/accept"><button type="submit" class="primary" data-testid="claim-accept">${t('sign.claim.accept.button')}</button></form>`);
    const mine = principal && normalizeEmail(principal.email) === normalizeEmail(recipient.email);
    const account = recipient.bound_principal_id
      ? html`<p class="hint" data-testid="claim-bound">${principal?.id === recipient.bound_principal_id ? t('sign.claim.bound.yours') : t('sign.claim.bound.other', { email: recipient.email })}</p>`
      : mine
        ? html`<form method="post" action="${link}/bind">${hiddenCsrf(csrf)}<button type="submit" class="secondary" data-testid="claim-bind">${t('sign.claim.bind.button')}</button></form>
<p class="hint">${t('sign.claim.bind.hint')}</p>`
        : principal
          ? html`<p class="hint" data-testid="claim-other-account">${t('sign.claim.other_account', { email: principal.email, recipient: recipient.email })}</p>`
          : link.length + 20 <= MAX_NEXT &&
            html`<p class="hint">${tHtml('sign.claim.sign_in', {
              email: recipient.email,
              link: html`<a href="${appPath}/login?next=${encodeURIComponent(link)}" data-testid="claim-sign-in">${t('sign.claim.sign_in.link')}</a>`,
            })}</p>`;
    return html`${accept}${account}`;
  }

  function files(ctx: Context, view: TransferView): SafeHtml {
    const released = view.transfer.status === 'released';
    return dataTable(
      'claim-files',
      [t('sign.claim.files.file'), t('sign.claim.files.kind'), t('sign.claim.files.size'), t('sign.claim.files.sha256'), ''],
      view.files.map((file, index) => ({
        attrs: { 'data-testid': 'claim-file' },
        cells: [
          file.name,
          file.kind,
          html`<span title="${t('sign.size.exact', { bytes: String(file.size) })}">${humanSize(Number(file.size))}</span>`,
          html`<code class="hash">${file.sha256}</code>`,
          released &&
            html`<form method="post" action="${pathOf(ctx)}/download/${index}"><button type="submit" class="primary" data-testid="claim-download">${t('sign.claim.files.download')}</button></form>`,
        ],
      })),
    );
  }

  /** The claim page, or the one invalid-link page (404) when the token opens nothing. */
  async function show(ctx: Context, notice?: Notice, status = 200): Promise<void> {
    let claim: Awaited<ReturnType<typeof publicClaim>>;
    try {
      claim = await publicClaim(deps.db, ctx.params.token);
    } catch (error) {
      refusal(error);
      return invalid(ctx);
    }
    const { view, recipient } = claim;
    const { transfer, sender } = view;
    const document = transfer.document_id ? await Document.query(deps.db).findById(transfer.document_id) : undefined;
    const body = html`<dl class="facts" data-testid="claim">
<dt>${t('sign.claim.facts.from')}</dt><dd data-testid="claim-from">${sender.name} (${sender.email})</dd>
<dt>${t('sign.claim.facts.for')}</dt><dd data-testid="claim-for">${recipient.name} (${recipient.email})</dd>
<dt>${t('sign.claim.facts.unlocks')}</dt><dd data-testid="claim-mode">${modeWords(view, document)}</dd>
${transfer.mode === 'accept' && html`<dt>${t('sign.claim.facts.accepted')}</dt><dd data-testid="claim-accepted">${t('sign.claim.facts.accepted_count', { accepted: view.recipients.filter((r) => r.accepted_at).length, total: view.recipients.length })}</dd>`}
<dt>${t('sign.claim.facts.status')}</dt><dd data-testid="claim-state">${stateWords(view, await blockedWords(deps.db, transfer, document))}</dd></dl>
${actions(ctx, view, recipient)}
<section aria-labelledby="files-title"><h2 id="files-title">${t('sign.claim.files.heading')}</h2>${files(ctx, view)}
<p class="hint">${transfer.status === 'released' ? t('sign.claim.files.hint_released') : t('sign.claim.files.hint_waiting')} ${t('sign.claim.files.keep')}</p></section>`;
    send(ctx, page(ctx, transfer.name, body, notice), status);
  }

  /** Every answer keeps the token out of Referer headers; a rule's refusal is the page with its status, never a 500. */
  const handle = (action: (ctx: Context) => Promise<void>) => async (ctx: Context) => {
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cache-Control', 'no-store');
    try {
      await action(ctx);
    } catch (error) {
      const refused = refusal(error);
      ctx.set(refused.headers);
      await show(ctx, { kind: 'error', text: refused.message }, refused.status);
    }
  };

  /** A guest's form has no session to bind a token to: it must come from this app's own pages. */
  async function guestForm(ctx: Context): Promise<void> {
    if (!checkOrigin(ctx, deps)) throw errors.invalidRequest(t('sign.claim.error.foreign_form'));
    await readForm(ctx, 4096);
  }

  router.get(
    base,
    handle((ctx) => show(ctx, noticeFrom(ctx, notices()))),
  );

  router.post(
    `${base}/accept`,
    handle(async (ctx) => {
      await guestForm(ctx);
      await acceptTransfer(rules, ctx.params.token, actorFrom(ctx, { type: 'recipient' }));
      ctx.redirect(`${pathOf(ctx)}?done=accepted`);
    }),
  );

  router.post(
    `${base}/download/:index`,
    handle(async (ctx) => {
      await guestForm(ctx);
      const { links } = await publicDownloads(rules, ctx.params.token, actorFrom(ctx, { type: 'recipient' }));
      const link = /^\d{1,6}$/.test(ctx.params.index) ? links[Number(ctx.params.index)] : undefined;
      if (!link) throw errors.notFound(t('sign.claim.error.no_file'));
      ctx.status = 303;
      ctx.redirect(link.url);
    }),
  );

  router.post(
    `${base}/bind`,
    handle(async (ctx) => {
      const { principal } = appState(ctx);
      if (!principal) throw errors.unauthorized(t('sign.claim.error.sign_in_first'));
      await postedForm(ctx, deps, 4096);
      await bindBySession(rules, ctx.params.token, principal, principalActor(ctx, principal));
      ctx.redirect(`${pathOf(ctx)}?done=bound`);
    }),
  );
}

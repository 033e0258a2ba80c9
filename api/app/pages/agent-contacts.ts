import type Router from '@koa/router';
import type { Context } from 'koa';
import { authorize } from '../../../activities/accounts/authorize';
import { acceptContact, acceptContactByToken, contactsOf, invitationOf, revokeContact } from '../../../activities/contacts/contacts';
import type { Services } from '../../../activities/services';
import type { Contact, Principal } from '../../../db/models';
import { type MessageKey, t } from '../../../lib/i18n';
import { html, type SafeHtml } from '../../http/html';
import { hiddenCsrf, renderPage, sendPage } from '../layout';
import { tHtml } from '../messages';
import {
  catalogueWords,
  dataTable,
  type Notice,
  noticeFrom,
  type PageRequest,
  pageHandler,
  postedForm,
  principalActor,
  refusal,
  when,
} from './common';

const TITLE = 'app.contacts.title';
const CURRENT = '/agent-contacts';

const NOTICES = catalogueWords({ accepted: 'app.contacts.accepted_notice', revoked: 'app.contacts.revoked_notice' });

/** How a revoked contact ended, and by whom, in the words of the side reading it. */
function ending(contact: Contact, within = false): MessageKey {
  // Within a sentence, the same words in lower case (their own messages: not every language lower-cases alike).
  if (within) return `${ending(contact)}_lower` as MessageKey;
  const self = contact.revoked_by === 'self';
  if (contact.accepted_at) return self ? 'app.contacts.ended.you_revoked' : 'app.contacts.ended.they_revoked';
  if (contact.direction === 'outbound') return self ? 'app.contacts.ended.you_cancelled' : 'app.contacts.ended.they_declined';
  return self ? 'app.contacts.ended.you_declined' : 'app.contacts.ended.they_withdrew';
}

/** The card of the invitation an accept link names, as the principal it was sent to sees it. */
function invitationCard(appPath: string, csrf: string, token: string, invitation: Contact): SafeHtml {
  const base = `${appPath}/agent-contacts`;
  const facts = html`<dl class="facts"><dt>${t('app.contacts.from')}</dt><dd data-testid="invitation-from">${invitation.counterparty_name}</dd>
<dt>${t('app.contacts.email')}</dt><dd data-testid="invitation-email">${invitation.counterparty_email}</dd><dt>${t('app.contacts.sent')}</dt><dd>${when(invitation.created_at)}</dd></dl>`;
  const state =
    invitation.status === 'invited'
      ? html`<p>${t('app.contacts.accepting')}</p>
<div class="actions"><form method="post" action="${base}/accept">${hiddenCsrf(csrf)}<input type="hidden" name="token" value="${token}"><button type="submit" class="primary" data-testid="invitation-accept">${t('app.contacts.accept_invitation')}</button></form>
<form method="post" action="${base}/${invitation.id}/revoke">${hiddenCsrf(csrf)}<button type="submit" class="secondary" data-testid="invitation-decline">${t('app.contacts.decline')}</button></form></div>`
      : invitation.status === 'active'
        ? html`<p data-testid="invitation-state">${tHtml('app.contacts.since', { at: when(invitation.accepted_at) })}</p>`
        : html`<p data-testid="invitation-state">${tHtml('app.contacts.no_longer', { ended: t(ending(invitation, true)), at: when(invitation.revoked_at) })}</p>`;
  return html`<section class="card" aria-labelledby="invitation-title" data-testid="invitation"><h2 id="invitation-title">${t('app.contacts.invites_you', { name: invitation.counterparty_name })}</h2>
${facts}${state}</section>`;
}

function actionButton(action: string, csrf: string, label: MessageKey, testid: string, kind: 'primary' | 'secondary' | 'danger'): SafeHtml {
  return html`<form method="post" action="${action}">${hiddenCsrf(csrf)}<button type="submit" class="${kind}" data-testid="${testid}">${t(label)}</button></form>`;
}

function rowAttrs(contact: Contact): Record<string, string> {
  return { 'data-testid': 'contact-row', 'data-contact-id': contact.id };
}

/** The principal's contacts, grouped by what they can do with each. */
function contactLists(appPath: string, csrf: string, contacts: Contact[], carded?: string): SafeHtml {
  const base = `${appPath}/agent-contacts`;
  const toMe = contacts.filter((c) => c.direction === 'inbound' && c.status === 'invited' && c.id !== carded);
  const active = contacts.filter((c) => c.status === 'active');
  const sent = contacts.filter((c) => c.direction === 'outbound' && c.status === 'invited');
  const revoked = contacts.filter((c) => c.status === 'revoked');

  const invitations =
    toMe.length > 0 &&
    html`<section aria-labelledby="to-you-title"><h2 id="to-you-title">${t('app.contacts.to_you')}</h2>${dataTable(
      'invitations-to-you',
      [t('app.contacts.from'), t('app.contacts.email'), t('app.contacts.invited'), ''],
      toMe.map((contact) => ({
        attrs: rowAttrs(contact),
        cells: [
          contact.counterparty_name,
          contact.counterparty_email,
          when(contact.created_at),
          html`<div class="actions">${actionButton(`${base}/${contact.id}/accept`, csrf, 'app.contacts.accept', 'contact-accept', 'primary')}${actionButton(`${base}/${contact.id}/revoke`, csrf, 'app.contacts.decline', 'contact-decline', 'secondary')}</div>`,
        ],
      })),
    )}</section>`;

  const current = active.length
    ? dataTable(
        'contacts-active',
        [t('app.contacts.name'), t('app.contacts.email'), t('app.contacts.since_column'), ''],
        active.map((contact) => ({
          attrs: rowAttrs(contact),
          cells: [
            contact.counterparty_name,
            contact.counterparty_email,
            when(contact.accepted_at),
            actionButton(`${base}/${contact.id}/revoke`, csrf, 'app.contacts.revoke', 'contact-revoke', 'danger'),
          ],
        })),
      )
    : html`<p class="muted" data-testid="no-contacts">${t('app.contacts.none')}</p>`;

  const outgoing =
    sent.length > 0 &&
    html`<section aria-labelledby="sent-title"><h2 id="sent-title">${t('app.contacts.you_sent')}</h2><p class="hint">${t('app.contacts.you_sent_hint')}</p>${dataTable(
      'invitations-sent',
      [t('app.contacts.to'), t('app.contacts.email'), t('app.contacts.sent'), ''],
      sent.map((contact) => ({
        attrs: rowAttrs(contact),
        cells: [
          contact.counterparty_name,
          contact.counterparty_email,
          when(contact.created_at),
          actionButton(`${base}/${contact.id}/revoke`, csrf, 'app.contacts.cancel', 'contact-cancel', 'secondary'),
        ],
      })),
    )}</section>`;

  const ended =
    revoked.length > 0 &&
    html`<section class="muted" aria-labelledby="revoked-title"><h2 id="revoked-title">${t('app.contacts.revoked')}</h2>${dataTable(
      'contacts-revoked',
      [t('app.contacts.name'), t('app.contacts.email'), t('app.contacts.ended_column'), t('app.contacts.how')],
      revoked.map((contact) => ({
        attrs: rowAttrs(contact),
        cells: [
          contact.counterparty_name,
          contact.counterparty_email,
          when(contact.revoked_at),
          html`<span data-testid="revoked-by">${t(ending(contact))}</span>`,
        ],
      })),
    )}</section>`;

  return html`${invitations}<section aria-labelledby="contacts-title"><h2 id="contacts-title">${t('app.contacts.yours')}</h2>${current}</section>${outgoing}${ended}`;
}

/**
 * The principal's agent contacts: invitations to accept or decline (also by the e-mailed
 * accept_url, `?accept=<token>`), active contacts to revoke, invitations sent to cancel.
 */
export function agentContactRoutes(router: Router, deps: Services, appPath: string): void {
  const flags = deps.config.flags.values;
  // The rules check the flag too; the page checks it first so that nothing of it shows when off.
  const gate = () => authorize(null, { flag: 'agent_contacts' }, flags);
  const base = `${appPath}/agent-contacts`;

  async function send(
    ctx: Context,
    principal: Principal,
    csrf: string,
    options: { notice?: Notice; status?: number; top?: SafeHtml; carded?: string } = {},
  ) {
    const contacts = await contactsOf(deps.db, principal);
    const body = html`${options.top}<p>${t('app.contacts.intro')}</p>
<p class="hint">${tHtml('app.contacts.intro_api', { endpoint: html`<code>POST /v1/contacts</code>` })}</p>
${contactLists(appPath, csrf, contacts, options.carded)}`;
    sendPage(
      ctx,
      renderPage({ title: t(TITLE), appPath, principal, csrf, flags, body, notice: options.notice, current: CURRENT }),
      options.status ?? 200,
    );
  }

  /** A posted action: done, back to the list with its notice; a rule's refusal is shown on the list with its status. */
  async function act({ ctx, principal, csrf }: PageRequest, action: () => Promise<keyof typeof NOTICES>) {
    gate();
    try {
      const done = await action();
      ctx.redirect(`${base}?done=${done}`);
    } catch (error) {
      const refused = refusal(error);
      ctx.set(refused.headers);
      await send(ctx, principal, csrf, { notice: { kind: 'error', text: refused.message }, status: refused.status });
    }
  }

  router.get(
    base,
    pageHandler(appPath, TITLE, async ({ ctx, principal, csrf }) => {
      gate();
      const accept = ctx.query.accept;
      if (accept === undefined) return send(ctx, principal, csrf, { notice: noticeFrom(ctx, NOTICES) });
      const token = typeof accept === 'string' ? accept : '';
      try {
        const invitation = await invitationOf(deps, principal, token);
        await send(ctx, principal, csrf, { top: invitationCard(appPath, csrf, token, invitation), carded: invitation.id });
      } catch (error) {
        const refused = refusal(error);
        ctx.set(refused.headers);
        const top = html`<p class="hint" data-testid="invitation-hint">${tHtml('app.contacts.signed_in_as', { email: html`<strong>${principal.email}</strong>` })}</p>`;
        await send(ctx, principal, csrf, { top, notice: { kind: 'error', text: refused.message }, status: refused.status });
      }
    }),
  );

  router.post(
    `${base}/accept`,
    pageHandler(appPath, TITLE, (request) =>
      act(request, async () => {
        const { fields } = await postedForm(request.ctx, deps);
        const { principal, ctx } = request;
        await acceptContactByToken(deps, { principal }, fields.token ?? '', {}, principalActor(ctx, principal));
        return 'accepted';
      }),
    ),
  );

  router.post(
    `${base}/:id/accept`,
    pageHandler(appPath, TITLE, (request) =>
      act(request, async () => {
        await postedForm(request.ctx, deps);
        const { principal, ctx } = request;
        await acceptContact(deps, { principal }, ctx.params.id, {}, principalActor(ctx, principal));
        return 'accepted';
      }),
    ),
  );

  router.post(
    `${base}/:id/revoke`,
    pageHandler(appPath, TITLE, (request) =>
      act(request, async () => {
        await postedForm(request.ctx, deps);
        const { principal, ctx } = request;
        await revokeContact(deps, { principal }, ctx.params.id, principalActor(ctx, principal));
        return 'revoked';
      }),
    ),
  );
}

import type { Document } from '../../../db/models';
import { formatMoment, htmlLang, t } from '../../../lib/i18n';
import { html } from '../../http/html';
import { tHtml } from '../messages';

/** Whether a sign link's document ended unsigned by its sender's doing or its deadline: the link then shows only why. */
export function endedUnsigned(document: Pick<Document, 'status'>): boolean {
  return document.status === 'voided' || document.status === 'expired';
}

/**
 * The sign link of a voided or expired document: what happened and when (and, for a void, the
 * sender's reason), with nothing to sign and no code to ask for. Server-rendered, no script.
 */
export function renderEndedSignPage(
  document: Pick<Document, 'name' | 'status' | 'voided_at' | 'void_reason' | 'expires_at' | 'expired_at'>,
): string {
  const at = (date: Date | null) => (date ? formatMoment(date) : '');
  const body =
    document.status === 'voided'
      ? html`<h1>${t('sign.ended.voided.heading')}</h1>
<p data-testid="ended">${t('sign.ended.voided.text', { document: document.name, at: at(document.voided_at) })}</p>
<p>${tHtml('sign.ended.voided.reason', { reason: html`<q data-testid="void-reason">${document.void_reason ?? ''}</q>` })}</p>`
      : html`<h1>${t('sign.ended.expired.heading')}</h1>
<p data-testid="ended">${t('sign.ended.expired.text', { document: document.name, at: at(document.expires_at ?? document.expired_at) })}</p>
<p>${t('sign.ended.expired.ask')}</p>`;
  return html`<!doctype html><html lang="${htmlLang()}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t(document.status === 'voided' ? 'sign.ended.voided.title' : 'sign.ended.expired.title', { document: document.name })}</title>
<link rel="stylesheet" href="/static/sign.css"></head><body><main class="notice" data-status="${document.status}">${body}</main></body></html>`.toString();
}

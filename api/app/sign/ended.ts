import type { Document } from '../../../db/models';
import { html } from '../../http/html';

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
  const at = (date: Date | null) => (date ? `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '');
  const body =
    document.status === 'voided'
      ? html`<h1>This document was voided</h1>
<p data-testid="ended">The sender voided “${document.name}” on ${at(document.voided_at)}, so it can no longer be signed.</p>
<p>Their reason: <q data-testid="void-reason">${document.void_reason ?? ''}</q></p>`
      : html`<h1>This document expired</h1>
<p data-testid="ended">“${document.name}” expired unsigned on ${at(document.expires_at ?? document.expired_at)}, so it can no longer be signed.</p>
<p>Ask the sender for a new one if you still mean to sign.</p>`;
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${document.status === 'voided' ? 'Voided' : 'Expired'}: ${document.name}</title>
<link rel="stylesheet" href="/static/sign.css"></head><body><main class="notice" data-status="${document.status}">${body}</main></body></html>`.toString();
}

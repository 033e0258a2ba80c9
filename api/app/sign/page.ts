import { htmlLang, t } from '../../../lib/i18n';
import { html } from '../../http/html';
import { browserMessages } from '../messages';

export interface SignPageOptions {
  token: string;
  appPath: string;
  invalid?: boolean;
  documentName?: string;
  signerName?: string;
  /** The document's owner principal, and their tenant's name when it has one. */
  senderName?: string;
  tenantName?: string | null;
  maskedEmail?: string;
  verified?: boolean;
}

/** "Sent by Ada Lovelace (Acme Ltd)", or without the parentheses for a tenant that has no name. */
export function sentBy(senderName: string, tenantName?: string | null): string {
  return tenantName
    ? t('sign.page.sent_by_tenant', { sender: senderName, tenant: tenantName })
    : t('sign.page.sent_by', { sender: senderName });
}

/**
 * The sign page shell. Everything after the first paint (the code step, the PDF viewer, the fields,
 * the signature pad) is /static/sign.js, reading the data attributes of <main>. The CSP allows no
 * inline script or style, so the markup carries classes only.
 * Its texts are the catalogue's `sign.` messages.
 *
 * Until the signer has confirmed the code, <main> is `landing`: the header (document, sender, signer)
 * and the code step make one card centred in the window; sign.js drops the class once the document
 * opens, and the card's box (`.shell`) then lays out as if it were not there.
 */
export function renderSignPage(options: SignPageOptions): string {
  const head = html`<!doctype html><html lang="${htmlLang()}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1, minimum-scale=1, maximum-scale=5, user-scalable=yes">
<title>${options.invalid ? t('sign.invalid.title') : t('sign.page.title', { document: options.documentName ?? '' })}</title>
<link rel="stylesheet" href="/static/sign.css">${browserMessages('browser.')}</head><body>`;
  if (options.invalid) {
    return html`${head}<main class="notice landing"><div class="shell"><h1>${t('sign.invalid.heading')}</h1><p>${t('sign.invalid.text')}</p></div></main></body></html>`.toString();
  }
  const sender = options.senderName ? html`<p class="from" data-testid="sender">${sentBy(options.senderName, options.tenantName)}</p>` : '';
  // The alert and status regions exist from the first paint so that screen readers announce changes.
  return html`${head}<main id="sign" class="${options.verified ? '' : 'landing'}" data-base="${options.appPath}/sign/${options.token}" data-verified="${options.verified ? 'true' : 'false'}" data-email="${options.maskedEmail ?? ''}">
<div class="shell" data-testid="landing">
<header class="top"><h1>${options.documentName ?? ''}</h1>${sender}<p class="for" data-testid="signer">${t('sign.page.for', { signer: options.signerName ?? '' })}</p></header>
<div class="alert" role="alert" data-testid="alert"></div>
<p class="status" role="status" data-testid="status"></p>
<div id="view" class="view"><noscript>${t('sign.page.noscript')}</noscript></div>
</div>
</main><script type="module" src="/static/sign.js"></script></body></html>`.toString();
}

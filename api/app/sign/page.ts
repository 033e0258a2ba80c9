import { html } from '../../http/html';

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
  return tenantName ? `Sent by ${senderName} (${tenantName})` : `Sent by ${senderName}`;
}

/**
 * The sign page shell. Everything after the first paint (the code step, the PDF viewer, the fields,
 * the signature pad) is /static/sign.js, reading the data attributes of <main>. The CSP allows no
 * inline script or style, so the markup carries classes only.
 *
 * Until the signer has confirmed the code, <main> is `landing`: the header (document, sender, signer)
 * and the code step make one card centred in the window; sign.js drops the class once the document
 * opens, and the card's box (`.shell`) then lays out as if it were not there.
 */
export function renderSignPage(options: SignPageOptions): string {
  const head = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1, minimum-scale=1, maximum-scale=5, user-scalable=yes">
<title>${options.invalid ? 'Link not valid' : `Sign: ${options.documentName ?? ''}`}</title>
<link rel="stylesheet" href="/static/sign.css"></head><body>`;
  if (options.invalid) {
    return html`${head}<main class="notice landing"><div class="shell"><h1>This link is not valid</h1><p>The sign link is wrong or no longer in use. Ask the sender for a new one.</p></div></main></body></html>`.toString();
  }
  const sender = options.senderName ? html`<p class="from" data-testid="sender">${sentBy(options.senderName, options.tenantName)}</p>` : '';
  // The alert and status regions exist from the first paint so that screen readers announce changes.
  return html`${head}<main id="sign" class="${options.verified ? '' : 'landing'}" data-base="${options.appPath}/sign/${options.token}" data-verified="${options.verified ? 'true' : 'false'}" data-email="${options.maskedEmail ?? ''}">
<div class="shell" data-testid="landing">
<header class="top"><h1>${options.documentName ?? ''}</h1>${sender}<p class="for" data-testid="signer">For ${options.signerName ?? ''}</p></header>
<div class="alert" role="alert" data-testid="alert"></div>
<p class="status" role="status" data-testid="status"></p>
<div id="view" class="view"><noscript>This page needs JavaScript to show and sign the document.</noscript></div>
</div>
</main><script type="module" src="/static/sign.js"></script></body></html>`.toString();
}

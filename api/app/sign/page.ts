import { html } from '../../http/html';

export interface SignPageOptions {
  token: string;
  appPath: string;
  invalid?: boolean;
  documentName?: string;
  signerName?: string;
  maskedEmail?: string;
  verified?: boolean;
}

/**
 * The sign page shell. Everything after the first paint (the code step, the PDF viewer, the fields,
 * the signature pad) is /static/sign.js, reading the data attributes of <main>. The CSP allows no
 * inline script or style, so the markup carries classes only.
 */
export function renderSignPage(options: SignPageOptions): string {
  const head = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.invalid ? 'Link not valid' : `Sign: ${options.documentName ?? ''}`}</title>
<link rel="stylesheet" href="/static/sign.css"></head><body>`;
  if (options.invalid) {
    return html`${head}<main class="notice"><h1>This link is not valid</h1><p>The sign link is wrong or no longer in use. Ask the sender for a new one.</p></main></body></html>`.toString();
  }
  // The alert and status regions exist from the first paint so that screen readers announce changes.
  return html`${head}<main id="sign" data-base="${options.appPath}/sign/${options.token}" data-verified="${options.verified ? 'true' : 'false'}" data-email="${options.maskedEmail ?? ''}">
<header class="top"><h1>${options.documentName ?? ''}</h1><p class="for" data-testid="signer">For ${options.signerName ?? ''}</p></header>
<div class="alert" role="alert" data-testid="alert"></div>
<p class="status" role="status" data-testid="status"></p>
<div id="view" class="view"><noscript>This page needs JavaScript to show and sign the document.</noscript></div>
</main><script type="module" src="/static/sign.js"></script></body></html>`.toString();
}

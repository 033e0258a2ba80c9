import type Router from '@koa/router';
import type { Context } from 'koa';
import { MAX_APPEARANCE_BYTES, storeAppearance } from '../../../activities/principals/appearance';
import type { Services } from '../../../activities/services';
import type { Principal } from '../../../db/models';
import { errors, ServiceError } from '../../../lib/errors';
import { t } from '../../../lib/i18n';
import { html, type SafeHtml } from '../../http/html';
import { hiddenCsrf, type PageOptions, renderPage, sendPage } from '../layout';
import { tHtml } from '../messages';
import { nameWord, noticeFrom, pageHandler, postedForm, principalActor, refusal, when } from './common';

/** Room for a 2 MB image as a file, or base64 in a url-encoded field; storeAppearance enforces 2 MB. */
const FORM_LIMIT = 4 * MAX_APPEARANCE_BYTES;
const DATA_URL = /^data:image\/(?:png|jpeg);base64,([A-Za-z0-9+/]+={0,2})$/;

/** The drawn signature arrives as a PNG data URL; only its bytes go to the rule, which checks them. */
function drawnBytes(value: string): Buffer {
  const match = DATA_URL.exec(value.trim());
  if (!match) throw errors.unsupportedMediaType(t('app.signature.drawing_unreadable'));
  return Buffer.from(match[1], 'base64');
}

function renderSignature(appPath: string, principal: Principal, csrf: string): SafeHtml {
  const current = principal.signature_sha256
    ? html`<figure class="signature" data-testid="signature-current"><img src="${appPath}/signature/image?v=${principal.signature_sha256.slice(0, 12)}" alt="${t('app.signature.alt')}">
<figcaption>${tHtml('app.signature.stored', { at: when(principal.signature_updated_at), kind: nameWord('image', principal.signature_kind ?? '') })}</figcaption></figure>`
    : html`<p data-testid="signature-current">${tHtml('app.signature.none', { none: html`<strong>${t('app.signature.none_strong')}</strong>` })}</p>`;
  return html`${current}
<section aria-labelledby="upload-title" class="card"><h2 id="upload-title">${t('app.signature.upload_title')}</h2>
<form method="post" action="${appPath}/signature" enctype="multipart/form-data" class="stack" data-testid="upload-form">${hiddenCsrf(csrf)}
<label for="signature-file">${t('app.signature.file')}</label>
<input id="signature-file" type="file" name="image" accept="image/png,image/jpeg" required aria-describedby="upload-help upload-problem" data-testid="signature-file">
<p id="upload-help" class="hint">${t('app.signature.file_help')}</p>
<p id="upload-problem" class="field-error" role="alert" data-testid="upload-problem"></p>
<div><button type="submit" class="primary" data-testid="signature-upload">${t('app.signature.upload')}</button></div></form></section>
<section aria-labelledby="draw-title" class="card" id="draw-section" hidden><h2 id="draw-title">${t('app.signature.draw_title')}</h2>
<form method="post" action="${appPath}/signature" class="stack" id="draw-form" data-testid="draw-form">${hiddenCsrf(csrf)}
<input type="hidden" name="drawn" value="">
<p class="hint" id="draw-help">${t('app.signature.draw_help')}</p>
<div class="pad-slot" data-pad></div>
<p class="field-error" role="alert" data-testid="draw-problem"></p>
<div class="row"><button type="button" class="link" data-pad-clear data-testid="draw-clear">${t('app.signature.clear')}</button><button type="submit" class="primary" data-testid="signature-draw-save">${t('app.signature.draw_save')}</button></div></form></section>
<noscript><p class="hint">${t('app.signature.noscript')}</p></noscript>`;
}

/** The principal's stored signature appearance: see it, upload a PNG/JPEG, or draw one. */
export function signatureRoutes(router: Router, deps: Services, appPath: string): void {
  const send = (ctx: Context, principal: Principal, csrf: string, notice?: PageOptions['notice'], status = 200) =>
    sendPage(
      ctx,
      renderPage({
        title: t('app.signature.title'),
        appPath,
        principal,
        csrf,
        flags: deps.config.flags.values,
        body: renderSignature(appPath, principal, csrf),
        notice,
        scripts: ['/static/app.js'],
        current: '/signature',
      }),
      status,
    );

  router.get(
    `${appPath}/signature`,
    pageHandler(appPath, 'app.signature.title', async ({ ctx, principal, csrf }) => {
      send(ctx, principal, csrf, noticeFrom(ctx, { stored: t('app.signature.stored_notice') }));
    }),
  );

  // The principal's own image only: the session decides whose, never the URL.
  router.get(
    `${appPath}/signature/image`,
    pageHandler(appPath, 'app.signature.title', async ({ ctx, principal }) => {
      if (!principal.signature_sha256) throw errors.notFound(t('app.signature.no_image'));
      ctx.type = principal.signature_kind === 'jpeg' ? 'image/jpeg' : 'image/png';
      ctx.set('Cache-Control', 'private, no-store');
      ctx.body = await deps.blobs.get(principal.signature_sha256);
    }),
  );

  router.post(
    `${appPath}/signature`,
    pageHandler(appPath, 'app.signature.title', async ({ ctx, principal, csrf }) => {
      try {
        const { fields, files } = await postedForm(ctx, deps, FORM_LIMIT).catch((error) => {
          throw error instanceof ServiceError && error.code === 'payload_too_large'
            ? errors.payloadTooLarge(t('app.signature.too_large'))
            : error;
        });
        const bytes = files.image ? files.image.bytes : fields.drawn ? drawnBytes(fields.drawn) : undefined;
        if (!bytes) throw errors.invalidRequest(t('app.signature.nothing'));
        await storeAppearance(deps, principal, bytes, principalActor(ctx, principal), files.image ? 'image' : 'drawn');
        ctx.redirect(`${appPath}/signature?done=stored`);
      } catch (error) {
        const refused = refusal(error);
        send(ctx, principal, csrf, { kind: 'error', text: refused.message }, refused.status);
      }
    }),
  );
}

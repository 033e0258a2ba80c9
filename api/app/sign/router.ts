import type Router from '@koa/router';
import type { Context } from 'koa';
import { documentStatusAfter } from '../../../activities/apply/apply-outcome';
import type { Services } from '../../../activities/services';
import { declineAtLink, documentForSigner, signAtLink } from '../../../activities/signers/sign';
import {
  maskEmail,
  requestSignCode,
  resolveSignLink,
  type SignerClient,
  type SignerView,
  senderOf,
  verifySignCode,
} from '../../../activities/signers/sign-link';
import { signerStateOf } from '../../../activities/signers/state';
import type { SignCodeAnswer, SignDeclineAnswer, SignSubmitAnswer, SignVerifyAnswer } from '../../../activities/signers/wire';
import { errors, ServiceError } from '../../../lib/errors';
import { t } from '../../../lib/i18n';
import { readJsonBody } from '../../http/body';
import { readSignedCookie, secureCookies, setSignedCookie } from '../../http/cookies';
import { parseOrThrow } from '../../http/route';
import { sendPdf } from '../files';
import { codeDeps } from '../pages/common';
import { requireSameOrigin } from '../session';
import { endedUnsigned, renderEndedSignPage } from './ended';
import { renderSignPage } from './page';
import { SignDeclineSchema, SignSubmitSchema, SignVerifySchema } from './schema';

const SIGN_BODY_LIMIT = 4 * 1024 * 1024;

/**
 * The sign page of signers who are not principals (the rules are in activities/signers). The link
 * names the signer; reading or signing needs the e-mailed code first, and then this signer's session
 * cookie.
 */
export function signRoutes(router: Router, deps: Services, appPath: string): void {
  const base = `${appPath}/sign/:token`;
  const cookieName = (signerId: string) => `svc_sign_${signerId}`;
  const codes = codeDeps(deps);

  const resolve = (ctx: Context) => resolveSignLink(deps, ctx.params.token);
  const clientOf = (ctx: Context): SignerClient => ({ ip: ctx.ip, userAgent: ctx.get('user-agent') });

  function verified(ctx: Context, view: SignerView): boolean {
    const session = readSignedCookie<{ s: string; exp: number }>(ctx, deps.secret, cookieName(view.signer.id), 'sign-session');
    return session?.s === view.signer.id;
  }

  async function resolveVerified(ctx: Context): Promise<SignerView> {
    const view = await resolve(ctx);
    if (!verified(ctx, view)) throw errors.unauthorized(t('sign.error.confirm_first'));
    return view;
  }

  router.get(base, async (ctx) => {
    ctx.set(
      'Content-Security-Policy',
      "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' data: blob:; worker-src 'self' blob:; style-src 'self'; frame-ancestors 'none'; form-action 'self'",
    );
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'html';
    try {
      const view = await resolve(ctx);
      if (endedUnsigned(view.document)) {
        // The link stays readable, to say why it no longer signs; 410: what it offered is gone.
        ctx.status = 410;
        ctx.body = renderEndedSignPage(view.document);
        return;
      }
      const sender = await senderOf(deps.db, view.document);
      ctx.body = renderSignPage({
        token: ctx.params.token,
        appPath,
        documentName: view.document.name,
        signerName: view.signer.name,
        senderName: sender.name,
        tenantName: sender.tenantName,
        maskedEmail: maskEmail(view.signer.email),
        verified: verified(ctx, view),
      });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      ctx.status = 404;
      ctx.body = renderSignPage({ token: '', appPath, invalid: true });
    }
  });

  // Every post of the sign page comes from the page itself: another site's page (even a sibling
  // subdomain, which SameSite=Lax lets carry the cookie) gets 403 cross_origin.
  router.post(`${base}/:action`, async (ctx, next) => {
    requireSameOrigin(ctx, deps);
    await next();
  });

  router.post(`${base}/code`, async (ctx) => {
    await deps.codeLimits.consumeIp(ctx.ip);
    const view = await resolve(ctx);
    // Nothing is left to open at a voided or expired document's link: no code is mailed for it.
    if (endedUnsigned(view.document))
      throw errors.expired(t(view.document.status === 'voided' ? 'sign.error.ended.voided' : 'sign.error.ended.expired'));
    const { sentTo, challenge } = await requestSignCode(codes, view, clientOf(ctx));
    ctx.body = { sent_to: sentTo, challenge } satisfies SignCodeAnswer;
  });

  router.post(`${base}/verify`, async (ctx) => {
    await deps.codeLimits.consumeIp(ctx.ip);
    const view = await resolve(ctx);
    const { code, challenge } = parseOrThrow(SignVerifySchema, await readJsonBody(ctx, 4096));
    await verifySignCode(codes, view, { code, challenge }, clientOf(ctx));
    setSignedCookie(ctx, deps.secret, {
      name: cookieName(view.signer.id),
      purpose: 'sign-session',
      payload: { s: view.signer.id },
      ttlMs: deps.config.durations.signSessionMs,
      path: `${appPath}/sign/`,
      secure: secureCookies(ctx, deps.config),
    });
    ctx.body = { verified: true } satisfies SignVerifyAnswer;
  });

  router.get(`${base}/state`, async (ctx) => {
    const view = await resolveVerified(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await signerStateOf(deps, view);
  });

  router.get(`${base}/document.pdf`, async (ctx) => {
    const view = await resolveVerified(ctx);
    const { document } = view;
    sendPdf(ctx, await documentForSigner(deps, view, clientOf(ctx)), `${document.name}.pdf`, document.current_sha256, 'inline');
  });

  router.post(`${base}/sign`, async (ctx) => {
    const view = await resolveVerified(ctx);
    const body = parseOrThrow(SignSubmitSchema, await readJsonBody(ctx, SIGN_BODY_LIMIT));
    const submission = { signature: body.signature, initials: body.initials, values: body.values };
    const outcome = await signAtLink(deps, view, submission, clientOf(ctx));
    ctx.status = outcome.status === 'pending' ? 202 : 200;
    ctx.body = {
      status: outcome.status === 'pending' ? 'processing' : 'signed',
      document_status: documentStatusAfter(outcome),
      document_hash: outcome.document_hash ?? null,
    } satisfies SignSubmitAnswer;
  });

  router.post(`${base}/decline`, async (ctx) => {
    const view = await resolveVerified(ctx);
    // A body is required (the page always sends one): an empty post declines nothing.
    const { reason } = parseOrThrow(SignDeclineSchema, await readJsonBody(ctx, 16 * 1024, { required: true }));
    const { documentStatus } = await declineAtLink(deps, view, reason, clientOf(ctx));
    ctx.body = { status: 'declined', document_status: documentStatus } satisfies SignDeclineAnswer;
  });
}

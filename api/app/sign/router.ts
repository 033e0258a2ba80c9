import type Router from '@koa/router';
import type { Context } from 'koa';
import { type Actor, recordObservation } from '../../../activities/audit/audit';
import { issueCode, verifyCode } from '../../../activities/codes/one-time-codes';
import { declineDocument, documentStatusAfter, recordApply, rejectionOf } from '../../../activities/documents/apply';
import { signersOf } from '../../../activities/documents/documents';
import { signerIdFromToken } from '../../../activities/documents/links';
import { handOverApply, signalSettled, waitForApply } from '../../../activities/documents/orchestration';
import { sendNow } from '../../../activities/mail/send';
import { Document, DocumentSigner } from '../../../db/models';
import { errors, ServiceError } from '../../../lib/errors';
import type { Services } from '../../../lib/services';
import { readJsonBody } from '../../http/body';
import { readSignedCookie, secureCookies, setSignedCookie } from '../../http/cookies';
import { parseOrThrow } from '../../http/route';
import { sendPdf } from '../files';
import { renderSignPage } from './page';
import { CONSENT_TEXT, checkValues, decodeImage, SignDeclineSchema, SignSubmitSchema, SignVerifySchema } from './schema';

const SIGN_BODY_LIMIT = 4 * 1024 * 1024;

interface SignerView {
  signer: DocumentSigner;
  document: Document;
  signers: DocumentSigner[];
}

function maskEmail(email: string): string {
  const [local, domain] = email.split('@');
  return `${local.slice(0, 1)}${'•'.repeat(Math.max(1, Math.min(6, local.length - 1)))}@${domain}`;
}

/**
 * The sign page of signers who are not principals. The link names the signer; reading or signing
 * needs a code e-mailed to the signer's address first, so whoever else holds the link (the sending
 * agent among them) cannot sign with it.
 */
export function signRoutes(router: Router, deps: Services, appPath: string): void {
  const base = `${appPath}/sign/:token`;
  const cookieName = (signerId: string) => `svc_sign_${signerId}`;

  async function resolve(ctx: Context): Promise<SignerView> {
    const signerId = signerIdFromToken(deps.secret, ctx.params.token);
    const signer = signerId ? await DocumentSigner.query(deps.db).findById(signerId) : undefined;
    const document = signer ? await Document.query(deps.db).findById(signer.document_id) : undefined;
    if (!signer || !document || document.status === 'draft') throw errors.notFound('This sign link is not valid.');
    return { signer, document, signers: await signersOf(deps.db, document.id) };
  }

  function verified(ctx: Context, signer: DocumentSigner): boolean {
    return readSignedCookie<{ s: string; exp: number }>(ctx, deps.secret, cookieName(signer.id), 'sign-session')?.s === signer.id;
  }

  async function resolveVerified(ctx: Context): Promise<SignerView> {
    const view = await resolve(ctx);
    if (!verified(ctx, view.signer)) throw errors.unauthorized('Confirm your e-mail address with the code we send you first.');
    return view;
  }

  const actorOf = (ctx: Context, signer: DocumentSigner): Actor => ({
    type: 'signer',
    id: signer.id,
    ip: ctx.ip,
    userAgent: ctx.get('user-agent'),
  });

  router.get(base, async (ctx) => {
    ctx.set(
      'Content-Security-Policy',
      "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' data: blob:; worker-src 'self' blob:; style-src 'self'; frame-ancestors 'none'; form-action 'self'",
    );
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'html';
    try {
      const { signer, document } = await resolve(ctx);
      ctx.body = renderSignPage({
        token: ctx.params.token,
        appPath,
        documentName: document.name,
        signerName: signer.name,
        maskedEmail: maskEmail(signer.email),
        verified: verified(ctx, signer),
      });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      ctx.status = 404;
      ctx.body = renderSignPage({ token: '', appPath, invalid: true });
    }
  });

  router.post(`${base}/code`, async (ctx) => {
    await deps.codeLimits.consumeIp(ctx.ip);
    const { signer, document } = await resolve(ctx);
    const code = await issueCode(deps, { purpose: 'sign', subject: signer.id, ttlMs: deps.config.durations.oneTimeCodeMs });
    const minutes = Math.max(1, Math.round(deps.config.durations.oneTimeCodeMs / 60_000));
    await sendNow(deps, {
      to: signer.email,
      subject: `Your code to open "${document.name}": ${code}`,
      text: `Your code is ${code}\n\nEnter it on the sign page to open "${document.name}". It works once, for ${minutes} minute(s).\nIf you did not ask for it, ignore this message.`,
      purpose: 'sign-code',
      tenantId: document.tenant_id,
      secrets: [code],
    });
    await recordObservation(deps.db, {
      tenantId: document.tenant_id,
      documentId: document.id,
      actor: actorOf(ctx, signer),
      action: 'sign.code_sent',
      data: { signer_id: signer.id },
    });
    ctx.body = { sent_to: maskEmail(signer.email) };
  });

  router.post(`${base}/verify`, async (ctx) => {
    await deps.codeLimits.consumeIp(ctx.ip);
    const { signer, document } = await resolve(ctx);
    const { code } = parseOrThrow(SignVerifySchema, await readJsonBody(ctx, 4096));
    await verifyCode(deps, {
      purpose: 'sign',
      subject: signer.id,
      code,
      owner: { email: signer.email, tenantId: document.tenant_id, what: `open "${document.name}" at your sign link` },
    });
    setSignedCookie(ctx, deps.secret, {
      name: cookieName(signer.id),
      purpose: 'sign-session',
      payload: { s: signer.id },
      ttlMs: deps.config.durations.signSessionMs,
      path: `${appPath}/sign/`,
      secure: secureCookies(ctx, deps.config),
    });
    await recordObservation(deps.db, {
      tenantId: document.tenant_id,
      documentId: document.id,
      actor: actorOf(ctx, signer),
      action: 'sign.email_verified',
      data: { signer_id: signer.id, email: signer.email },
    });
    ctx.body = { verified: true };
  });

  router.get(`${base}/state`, async (ctx) => {
    const { signer, document, signers } = await resolveVerified(ctx);
    let blocked: string | undefined;
    if (document.strict_order) {
      const before = signers.filter((other) => other.position < signer.position && other.status !== 'signed');
      if (before.length > 0) blocked = `Waiting for ${before.map((s) => s.name).join(', ')} to sign first.`;
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      document: {
        id: document.id,
        name: document.name,
        status: document.status,
        page_count: document.page_count,
        strict_order: document.strict_order,
        sha256: document.current_sha256,
      },
      signer: {
        id: signer.id,
        name: signer.name,
        email: signer.email,
        role: signer.role,
        status: signer.status,
        signed_at: signer.signed_at?.toISOString() ?? null,
      },
      signers: signers.map((s) => ({ name: s.name, role: s.role, status: s.status })),
      widgets: document.widgets.map((widget) => ({ ...widget, mine: widget.role === signer.role })),
      can_sign: document.status === 'sent' && signer.status === 'pending' && !blocked,
      blocked_reason: blocked ?? null,
      consent_text: CONSENT_TEXT,
    };
  });

  router.get(`${base}/document.pdf`, async (ctx) => {
    const { signer, document } = await resolveVerified(ctx);
    await recordObservation(deps.db, {
      tenantId: document.tenant_id,
      documentId: document.id,
      actor: actorOf(ctx, signer),
      action: 'document.viewed',
      data: { signer_id: signer.id, sha256: document.current_sha256 },
    });
    sendPdf(ctx, await deps.blobs.get(document.current_sha256), `${document.name}.pdf`, document.current_sha256, 'inline');
  });

  router.post(`${base}/sign`, async (ctx) => {
    const { signer, document } = await resolveVerified(ctx);
    const body = parseOrThrow(SignSubmitSchema, await readJsonBody(ctx, SIGN_BODY_LIMIT));
    checkValues(
      document.widgets.filter((widget) => widget.role === signer.role),
      body.values,
    );
    const apply = await recordApply(deps, {
      signer,
      kind: 'browser',
      input: { values: body.values, appearance: body.signature.method, consent_text: CONSENT_TEXT },
      signatureImage: decodeImage(body.signature.image, 'signature.image'),
      initialsImage: body.initials ? decodeImage(body.initials.image, 'initials.image') : undefined,
      actor: actorOf(ctx, signer),
    });
    await handOverApply(deps, apply);
    const outcome = await waitForApply(deps.db, apply.id, deps.config.durations.applyWaitMs);
    if (outcome.status === 'rejected') throw rejectionOf(outcome);
    ctx.status = outcome.status === 'pending' ? 202 : 200;
    ctx.body = {
      status: outcome.status === 'pending' ? 'processing' : 'signed',
      document_status: documentStatusAfter(outcome),
      document_hash: outcome.document_hash ?? null,
    };
  });

  router.post(`${base}/decline`, async (ctx) => {
    const { signer, document } = await resolveVerified(ctx);
    const { reason } = parseOrThrow(SignDeclineSchema, await readJsonBody(ctx, 16 * 1024));
    const declined = await declineDocument(deps.db, { signerId: signer.id, reason, actor: actorOf(ctx, signer) });
    await signalSettled(deps.temporal, deps.config, document.id);
    ctx.body = { status: 'declined', document_status: declined.status };
  });
}

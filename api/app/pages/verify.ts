import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Services } from '../../../activities/services';
import { type VerifiedSigner, type VerifyReport, verifyPdf } from '../../../activities/verify/verify';
import { errors, ServiceError } from '../../../lib/errors';
import { html, type SafeHtml } from '../../http/html';
import { readForm } from '../forms';
import { hiddenCsrf, renderPage, sendPage } from '../layout';
import { appState, checkForm, checkOrigin } from '../session';
import { humanSize } from './claim';
import { dataTable, type Notice, refusal, when } from './common';

const TITLE = 'Verify a PDF';
/** Room for the multipart framing around a file of the largest size taken. */
const FORM_OVERHEAD = 64 * 1024;

const HOW: Record<VerifiedSigner['how'], string> = {
  browser: 'In the browser, at their sign link',
  l1: 'By an agent, confirmed by the principal (L1)',
  l2: 'By an agent within the principal’s mandate (L2)',
  offer: 'By accepting an offer',
};

const KIND: Record<VerifyReport['signatures'][number]['kind'], string> = {
  approval: 'Approval signature',
  certification: 'Certification',
  timestamp: 'Document timestamp',
};

const INDICATION: Record<VerifyReport['signatures'][number]['indication'], { text: string; badge: string }> = {
  'TOTAL-PASSED': { text: 'Passed', badge: 'active' },
  'TOTAL-FAILED': { text: 'Failed', badge: 'revoked' },
  INDETERMINATE: { text: 'Indeterminate', badge: 'pending' },
};

const SOURCE: Record<VerifyReport['signatures'][number]['time_source'], string> = {
  signature_timestamp: 'its timestamp',
  document_timestamp: 'a later document timestamp',
  none: 'not proven',
};

const at = (iso: string | null) => when(iso ? new Date(iso) : null);

const VERDICT: Record<VerifyReport['verdict'], { title: string; lead: string; role: 'status' | 'alert' }> = {
  valid: {
    title: 'Valid',
    lead: 'Every signature and timestamp passed on a trusted chain, and nothing after them changed the document beyond what they permit.',
    role: 'status',
  },
  invalid: { title: 'Not valid', lead: 'This document is not what was signed, or a signature does not hold:', role: 'alert' },
  indeterminate: {
    title: 'Cannot be confirmed',
    lead: 'Nothing failed, but not everything could be established, so this is not a valid result:',
    role: 'alert',
  },
};

function verdict(report: VerifyReport): SafeHtml {
  const shown = VERDICT[report.verdict];
  return html`<section class="verdict ${report.verdict === 'valid' ? 'valid' : 'invalid'}" role="${shown.role}" data-testid="verdict" data-valid="${String(report.valid)}" data-verdict="${report.verdict}"><h2>${shown.title}</h2>
<p>${shown.lead}</p>${report.problems.length > 0 && html`<ul data-testid="problems">${report.problems.map((problem) => html`<li>${problem}</li>`)}</ul>`}</section>`;
}

function origin(report: VerifyReport): SafeHtml {
  if (!report.issued_by_this_service)
    return html`<dl class="facts" data-testid="origin"><dt>Issued by this service</dt><dd data-testid="issued">No</dd>
<dt>SHA-256</dt><dd><code class="hash">${report.sha256}</code></dd></dl>
<p class="hint">This file is not byte for byte a revision this service issued: only its signatures were checked.</p>`;
  const signers = report.signers.length
    ? dataTable(
        'verify-signers',
        ['Name', 'E-mail', 'How', 'Mandate', 'Level', 'Signed at'],
        report.signers.map((signer) => ({
          attrs: { 'data-testid': 'verify-signer', 'data-how': signer.how },
          cells: [
            signer.name,
            signer.email,
            HOW[signer.how],
            signer.mandate_id ? html`<code>${signer.mandate_id}</code>` : '—',
            signer.level ?? '—',
            at(signer.signed_at),
          ],
        })),
      )
    : html`<p class="muted" data-testid="no-signers">No one had signed by this revision.</p>`;
  return html`<dl class="facts" data-testid="origin"><dt>Issued by this service</dt><dd data-testid="issued">Yes</dd>
<dt>Document</dt><dd><code data-testid="document-id">${report.document_id}</code></dd>
<dt>Revision</dt><dd data-testid="revision">${report.revision}</dd>
<dt>Completed</dt><dd data-testid="completed">${report.completed ? 'Yes: signed by everyone, with its certificate of completion' : 'No: a revision before completion'}</dd>
<dt>SHA-256</dt><dd><code class="hash">${report.sha256}</code></dd></dl>
<h3>Signers</h3>${signers}`;
}

function signatures(report: VerifyReport): SafeHtml {
  if (report.signatures.length === 0) return html`<p class="muted" data-testid="no-signatures">No digital signature.</p>`;
  // Numbered as the problems name them ("Signature 2 (…): why").
  return dataTable(
    'verify-signatures',
    ['Signature', 'Signer', 'Trusted time', 'Chain', 'Level', 'Changes after it', 'Result'],
    report.signatures.map((signature) => {
      const result = INDICATION[signature.indication];
      const changes = signature.changes_after;
      return {
        attrs: { 'data-testid': 'verify-signature', 'data-valid': String(signature.valid), 'data-indication': signature.indication },
        cells: [
          html`${signature.index}. ${KIND[signature.kind]}${signature.field && html`<br><span class="muted">${signature.field}</span>`}${!signature.reachable && html`<br><strong>Not in the document’s form: PDF readers do not show it</strong>`}`,
          signature.signer ?? '—',
          html`${at(signature.trusted_time)}<br><span class="muted">${SOURCE[signature.time_source]}</span>`,
          signature.chain
            ? html`${signature.chain.status === 'trusted' ? html`Trusted: ${signature.chain.anchor}` : signature.chain.status === 'untrusted' ? 'No trusted anchor' : 'Does not hold'}${signature.chain.revocation === 'revoked' && html`<br><strong>Revoked</strong>`}`
            : '—',
          signature.pades_level ?? '—',
          changes.length === 0
            ? 'None'
            : html`<ul class="plain">${changes.map((change) => html`<li>${change.allowed ? 'Allowed' : html`<strong>Not allowed</strong>`}: revision ${change.revision}, ${change.what}</li>`)}</ul>`,
          html`<span class="badge ${result.badge}">${result.text}</span>${signature.sub_indication && html`<br><code>${signature.sub_indication}</code>`}`,
        ],
      };
    }),
  );
}

function renderReport(report: VerifyReport, filename: string): SafeHtml {
  return html`<div class="report" data-testid="report">${verdict(report)}
<p class="hint">Checked: <strong data-testid="filename">${filename}</strong> · ${report.revisions} revision${report.revisions === 1 ? '' : 's'}${report.modified_after_seal && html` · something was added after its last signature`}</p>
<section aria-labelledby="origin-title"><h2 id="origin-title">Where it comes from</h2>${origin(report)}</section>
<section aria-labelledby="signatures-title"><h2 id="signatures-title">Signatures</h2>${signatures(report)}</section></div>`;
}

function renderForm(appPath: string, limit: number, again: boolean, csrf: string | undefined): SafeHtml {
  return html`<section class="card" aria-labelledby="verify-form-title"><h2 id="verify-form-title">${again ? 'Verify another PDF' : 'Choose a PDF'}</h2>
<form method="post" action="${appPath}/verify" enctype="multipart/form-data" class="stack" data-testid="verify-form">${csrf && hiddenCsrf(csrf)}
<div class="drop-zone" data-drop-zone data-limit="${String(limit)}">
<label for="verify-pdf">A signed PDF, up to ${humanSize(limit)}</label>
<input id="verify-pdf" type="file" name="pdf" accept="application/pdf,.pdf" required aria-describedby="verify-help verify-problem" data-testid="verify-pdf">
<p id="verify-help" class="hint" data-drop-hint>Or drop the file here.</p></div>
<p id="verify-problem" class="field-error" role="alert" data-testid="verify-problem"></p>
<div><button type="submit" class="primary" data-testid="verify-submit">Verify</button></div></form></section>`;
}

/**
 * Anyone can check a PDF here, signed in or not: the rule of POST /v1/verify (activities/verify), on
 * the app's PDF threads, its report as a page. Nothing is stored and nothing is done for a session.
 */
export function verifyRoutes(router: Router, deps: Services, appPath: string): void {
  const limit = deps.config.verifyLimitBytes;
  const flags = deps.config.flags.values;
  const intro = html`<p>Check a signed PDF as a relying party's validator does: whether each signature and timestamp holds on a certificate chain this service trusts, what changed after each one and whether it was allowed, and whether this service issued the file (then which document, and who signed it and how). The file is read, not kept.</p>`;

  function send(ctx: Context, body: SafeHtml, notice?: Notice, status = 200): void {
    const { principal, csrf } = appState(ctx);
    const common = { title: TITLE, appPath, body: html`${intro}${body}`, notice, scripts: ['/static/verify.js'], current: '/verify' };
    sendPage(ctx, principal ? renderPage({ ...common, principal, flags, csrf }) : renderPage(common), status);
  }

  /**
   * The posted file, at most `limit` bytes, from this app's own page: a guest's form has no session
   * to bind a token to, so its Origin is what is checked; a signed-in principal's carries the
   * session's form token, like every form of theirs.
   */
  async function posted(ctx: Context): Promise<{ filename: string; bytes: Buffer }> {
    const foreign = errors.invalidRequest('This form has expired or did not come from this app. Open the page again and retry.');
    if (!checkOrigin(ctx, deps)) throw foreign;
    const tooLarge = errors.payloadTooLarge(`The PDF is larger than ${humanSize(limit)}.`);
    const { fields, files } = await readForm(ctx, limit + FORM_OVERHEAD).catch((error) => {
      throw error instanceof ServiceError && error.code === 'payload_too_large' ? tooLarge : error;
    });
    if (appState(ctx).principal && !checkForm(ctx, deps, fields._csrf)) throw foreign;
    const file = files.pdf;
    if (!file || file.bytes.length === 0) throw errors.invalidRequest('Choose a PDF file to verify.');
    if (file.bytes.length > limit) throw tooLarge;
    return { filename: file.filename, bytes: file.bytes };
  }

  router.get(`${appPath}/verify`, (ctx) => send(ctx, renderForm(appPath, limit, false, appState(ctx).csrf)));

  router.post(`${appPath}/verify`, async (ctx) => {
    let release: (() => void) | undefined;
    try {
      // A place in the verify lane before the upload is read, as for POST /v1/verify.
      release = deps.verifier.admit(ctx.ip);
      const { filename, bytes } = await posted(ctx);
      const report = await verifyPdf({ db: deps.db, verify: (pdf) => deps.verifier.verify(pdf) }, bytes);
      send(ctx, html`${renderReport(report, filename)}${renderForm(appPath, limit, true, appState(ctx).csrf)}`);
    } catch (error) {
      // A refused file (invalid_pdf, too large, none chosen) is a message on the page, never a 500.
      const refused = refusal(error);
      ctx.set(refused.headers);
      send(ctx, renderForm(appPath, limit, false, appState(ctx).csrf), { kind: 'error', text: refused.message }, refused.status);
    } finally {
      release?.();
    }
  });
}

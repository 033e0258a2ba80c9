import type Router from '@koa/router';
import type { Context } from 'koa';
import { policyWords } from '../../../activities/mandates/policy';
import type { Services } from '../../../activities/services';
import { type VerifiedMandate, type VerifiedSigner, type VerifyReport, verifyPdf } from '../../../activities/verify/verify';
import { errors, ServiceError } from '../../../lib/errors';
import { type MessageKey, t } from '../../../lib/i18n';
import { html, type SafeHtml } from '../../http/html';
import { readForm } from '../forms';
import { hiddenCsrf, renderPage, sendPage } from '../layout';
import { tHtml } from '../messages';
import { appState, checkForm, checkOrigin } from '../session';
import { humanSize } from './claim';
import { dataTable, type Notice, refusal, when } from './common';

/** Room for the multipart framing around a file of the largest size taken. */
const FORM_OVERHEAD = 64 * 1024;

const HOW: Record<VerifiedSigner['how'], MessageKey> = {
  browser: 'sign.verify.how.browser',
  l1: 'sign.verify.how.l1',
  l2: 'sign.verify.how.l2',
  offer: 'sign.verify.how.offer',
};

const KIND: Record<VerifyReport['signatures'][number]['kind'], MessageKey> = {
  approval: 'sign.verify.kind.approval',
  certification: 'sign.verify.kind.certification',
  timestamp: 'sign.verify.kind.timestamp',
};

const INDICATION: Record<VerifyReport['signatures'][number]['indication'], { text: MessageKey; badge: string }> = {
  'TOTAL-PASSED': { text: 'sign.verify.indication.passed', badge: 'active' },
  'TOTAL-FAILED': { text: 'sign.verify.indication.failed', badge: 'revoked' },
  INDETERMINATE: { text: 'sign.verify.indication.indeterminate', badge: 'pending' },
};

const SOURCE: Record<VerifyReport['signatures'][number]['time_source'], MessageKey> = {
  signature_timestamp: 'sign.verify.source.signature_timestamp',
  document_timestamp: 'sign.verify.source.document_timestamp',
  none: 'sign.verify.source.none',
};

const at = (iso: string | null) => when(iso ? new Date(iso) : null);

const VERDICT: Record<VerifyReport['verdict'], { title: MessageKey; lead: MessageKey; role: 'status' | 'alert' }> = {
  valid: { title: 'sign.verify.verdict.valid.title', lead: 'sign.verify.verdict.valid.lead', role: 'status' },
  invalid: { title: 'sign.verify.verdict.invalid.title', lead: 'sign.verify.verdict.invalid.lead', role: 'alert' },
  indeterminate: { title: 'sign.verify.verdict.indeterminate.title', lead: 'sign.verify.verdict.indeterminate.lead', role: 'alert' },
};

function verdict(report: VerifyReport): SafeHtml {
  const shown = VERDICT[report.verdict];
  return html`<section class="verdict ${report.verdict === 'valid' ? 'valid' : 'invalid'}" role="${shown.role}" data-testid="verdict" data-valid="${String(report.valid)}" data-verdict="${report.verdict}"><h2>${t(shown.title)}</h2>
<p>${t(shown.lead)}</p>${report.problems.length > 0 && html`<ul data-testid="problems">${report.problems.map((problem) => html`<li>${problem}</li>`)}</ul>`}</section>`;
}

/** A signature's mandate: its id, the limits it kept to (in plain words), and whether it is in force now. */
function mandateCell(mandate: VerifiedMandate): SafeHtml {
  const limits = mandate.policy ? policyWords(mandate.policy).join(' ') : t('sign.verify.signers.no_limits');
  return html`<code>${mandate.id}</code><br><span class="hint" data-testid="verify-mandate-policy">${t('sign.verify.signers.kept_to', { limits })}</span><br><span data-testid="verify-mandate-status">${t('sign.verify.signers.mandate_now', { status: mandate.status_now })}</span>`;
}

function origin(report: VerifyReport): SafeHtml {
  if (!report.issued_by_this_service)
    return html`<dl class="facts" data-testid="origin"><dt>${t('sign.verify.origin.issued')}</dt><dd data-testid="issued">${t('sign.verify.origin.no')}</dd>
<dt>${t('sign.verify.origin.sha256')}</dt><dd><code class="hash">${report.sha256}</code></dd></dl>
<p class="hint">${t('sign.verify.origin.not_issued')}</p>`;
  const signers = report.signers.length
    ? dataTable(
        'verify-signers',
        [
          t('sign.verify.signers.name'),
          t('sign.verify.signers.email'),
          t('sign.verify.signers.how'),
          t('sign.verify.signers.mandate'),
          t('sign.verify.signers.level'),
          t('sign.verify.signers.signed_at'),
        ],
        report.signers.map((signer) => ({
          attrs: { 'data-testid': 'verify-signer', 'data-how': signer.how },
          cells: [
            signer.name,
            signer.email,
            t(HOW[signer.how]),
            signer.mandate ? mandateCell(signer.mandate) : signer.mandate_id ? html`<code>${signer.mandate_id}</code>` : '—',
            signer.level ?? '—',
            at(signer.signed_at),
          ],
        })),
      )
    : html`<p class="muted" data-testid="no-signers">${t('sign.verify.signers.none')}</p>`;
  return html`<dl class="facts" data-testid="origin"><dt>${t('sign.verify.origin.issued')}</dt><dd data-testid="issued">${t('sign.verify.origin.yes')}</dd>
<dt>${t('sign.verify.origin.document')}</dt><dd><code data-testid="document-id">${report.document_id}</code></dd>
<dt>${t('sign.verify.origin.revision')}</dt><dd data-testid="revision">${report.revision}</dd>
<dt>${t('sign.verify.origin.completed')}</dt><dd data-testid="completed">${t(report.completed ? 'sign.verify.origin.completed_yes' : 'sign.verify.origin.completed_no')}</dd>
<dt>${t('sign.verify.origin.sha256')}</dt><dd><code class="hash">${report.sha256}</code></dd></dl>
<h3>${t('sign.verify.signers.heading')}</h3>${signers}`;
}

function signatures(report: VerifyReport): SafeHtml {
  if (report.signatures.length === 0) return html`<p class="muted" data-testid="no-signatures">${t('sign.verify.signatures.none')}</p>`;
  // Numbered as the problems name them ("Signature 2 (…): why").
  return dataTable(
    'verify-signatures',
    [
      t('sign.verify.signatures.signature'),
      t('sign.verify.signatures.signer'),
      t('sign.verify.signatures.trusted_time'),
      t('sign.verify.signatures.chain'),
      t('sign.verify.signatures.level'),
      t('sign.verify.signatures.changes'),
      t('sign.verify.signatures.result'),
    ],
    report.signatures.map((signature) => {
      const result = INDICATION[signature.indication];
      const changes = signature.changes_after;
      return {
        attrs: { 'data-testid': 'verify-signature', 'data-valid': String(signature.valid), 'data-indication': signature.indication },
        cells: [
          html`${t('sign.verify.signature.numbered', { index: String(signature.index), kind: t(KIND[signature.kind]) })}${signature.field && html`<br><span class="muted">${signature.field}</span>`}${!signature.reachable && html`<br><strong>${t('sign.verify.signature.unreachable')}</strong>`}`,
          signature.signer ?? '—',
          html`${at(signature.trusted_time)}<br><span class="muted">${t(SOURCE[signature.time_source])}</span>`,
          signature.chain
            ? html`${signature.chain.status === 'trusted' ? t('sign.verify.chain.trusted', { anchor: signature.chain.anchor ?? '' }) : signature.chain.status === 'untrusted' ? t('sign.verify.chain.untrusted') : t('sign.verify.chain.broken')}${signature.chain.revocation === 'revoked' && html`<br><strong>${t('sign.verify.chain.revoked')}</strong>`}`
            : '—',
          signature.pades_level ?? '—',
          changes.length === 0
            ? t('sign.verify.changes.none')
            : html`<ul class="plain">${changes.map(
                (change) =>
                  html`<li>${tHtml('sign.verify.change', {
                    allowed: change.allowed
                      ? t('sign.verify.change.allowed')
                      : html`<strong>${t('sign.verify.change.not_allowed')}</strong>`,
                    revision: String(change.revision),
                    what: change.what,
                  })}</li>`,
              )}</ul>`,
          html`<span class="badge ${result.badge}">${t(result.text)}</span>${signature.sub_indication && html`<br><code>${signature.sub_indication}</code>`}`,
        ],
      };
    }),
  );
}

function renderReport(report: VerifyReport, filename: string): SafeHtml {
  return html`<div class="report" data-testid="report">${verdict(report)}
<p class="hint">${tHtml(report.modified_after_seal ? 'sign.verify.checked_modified' : 'sign.verify.checked', {
    filename: html`<strong data-testid="filename">${filename}</strong>`,
    revisions: report.revisions,
  })}</p>
<section aria-labelledby="origin-title"><h2 id="origin-title">${t('sign.verify.origin.heading')}</h2>${origin(report)}</section>
<section aria-labelledby="signatures-title"><h2 id="signatures-title">${t('sign.verify.signatures.heading')}</h2>${signatures(report)}</section></div>`;
}

function renderForm(appPath: string, limit: number, again: boolean, csrf: string | undefined): SafeHtml {
  return html`<section class="card" aria-labelledby="verify-form-title"><h2 id="verify-form-title">${t(again ? 'sign.verify.form.again' : 'sign.verify.form.choose')}</h2>
<form method="post" action="${appPath}/verify" enctype="multipart/form-data" class="stack" data-testid="verify-form">${csrf && hiddenCsrf(csrf)}
<div class="drop-zone" data-drop-zone data-limit="${String(limit)}">
<label for="verify-pdf">${t('sign.verify.form.label', { size: humanSize(limit) })}</label>
<input id="verify-pdf" type="file" name="pdf" accept="application/pdf,.pdf" required aria-describedby="verify-help verify-problem" data-testid="verify-pdf">
<p id="verify-help" class="hint" data-drop-hint>${t('sign.verify.form.drop')}</p></div>
<p id="verify-problem" class="field-error" role="alert" data-testid="verify-problem"></p>
<div><button type="submit" class="primary" data-testid="verify-submit">${t('sign.verify.form.submit')}</button></div></form></section>`;
}

/**
 * Anyone can check a PDF here, signed in or not: the rule of POST /v1/verify (activities/verify), on
 * the app's PDF threads, its report as a page. Nothing is stored and nothing is done for a session.
 */
export function verifyRoutes(router: Router, deps: Services, appPath: string): void {
  const limit = deps.config.verifyLimitBytes;
  const flags = deps.config.flags.values;

  function send(ctx: Context, body: SafeHtml, notice?: Notice, status = 200): void {
    const { principal, csrf } = appState(ctx);
    const intro = html`<p>${t('sign.verify.intro')}</p>`;
    const common = {
      title: t('sign.verify.title'),
      appPath,
      body: html`${intro}${body}`,
      notice,
      scripts: ['/static/verify.js'],
      current: '/verify',
    };
    sendPage(ctx, principal ? renderPage({ ...common, principal, flags, csrf }) : renderPage(common), status);
  }

  /**
   * The posted file, at most `limit` bytes, from this app's own page: a guest's form has no session
   * to bind a token to, so its Origin is what is checked; a signed-in principal's carries the
   * session's form token, like every form of theirs.
   */
  async function posted(ctx: Context): Promise<{ filename: string; bytes: Buffer }> {
    const foreign = errors.invalidRequest(t('sign.verify.error.foreign_form'));
    if (!checkOrigin(ctx, deps)) throw foreign;
    const tooLarge = errors.payloadTooLarge(t('sign.verify.error.too_large', { size: humanSize(limit) }));
    const { fields, files } = await readForm(ctx, limit + FORM_OVERHEAD).catch((error) => {
      throw error instanceof ServiceError && error.code === 'payload_too_large' ? tooLarge : error;
    });
    if (appState(ctx).principal && !checkForm(ctx, deps, fields._csrf)) throw foreign;
    const file = files.pdf;
    if (!file || file.bytes.length === 0) throw errors.invalidRequest(t('sign.verify.error.no_file'));
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

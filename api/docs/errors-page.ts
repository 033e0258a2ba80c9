import { ERROR_CATALOGUE } from '../../lib/errors';
import { html, joinHtml } from '../http/html';

/** The page docs_url points at: every error code with its status and meaning, each with an anchor. */
export function renderErrorsPage(): string {
  const rows = Object.entries(ERROR_CATALOGUE).map(
    ([code, { status, description }]) => html`<tr id="${code}"><td><code>${code}</code></td><td>${status}</td><td>${description}</td></tr>`,
  );
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Error codes</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}td{padding:.4rem .6rem;border-bottom:1px solid #ddd;vertical-align:top}tr:target{background:#fff6c2}</style>
</head><body><h1>Error codes</h1>
<p>Every error answers <code>{"error": {"code", "message", "docs_url"}}</code>; <code>invalid_request</code> adds <code>details</code>, one entry per field.</p>
<table><thead><tr><th>Code</th><th>HTTP</th><th>Meaning</th></tr></thead><tbody>
${joinHtml(rows, '\n')}
</tbody></table></body></html>`.toString();
}

/**
 * The 202 of an apply that outlived its wait, in the OpenAPI document: what the body says (`shows`)
 * and how the caller learns the outcome (the offer accept's too).
 */
export function applyProcessing(shows: string): string {
  return `The signature is still being applied once \`SVC_APPLY_WAIT_MS\` (20 s by default) has passed: ${shows}; the answer never comes later than that. The apply goes on and nothing more is needed. Learn its outcome by repeating this request with the same \`Idempotency-Key\` (202 while it runs, then the final answer: applied, or the refusal with its error code), by \`GET /v1/documents/{id}\` (each signer's \`apply\`: \`processing\`, \`applied\`, or \`rejected\` with its \`error\`), or by the webhook events \`document.signed\` and \`document.sign_failed\`. The SDK, the CLI and the MCP tools wait for it.`;
}

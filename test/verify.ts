import type { Mandate } from '../db/models';
import { randomBase62 } from '../lib/ids';
import { downloadPdf, SignerSession, seedSamples, sentNda, waitForDocument } from './documents';
import { call } from './http';
import { dataUrl, signaturePng } from './images';
import { mandatedAccount, principalOf } from './principal';
import type { Stack } from './stack';

export interface CompletedPdf {
  documentId: string;
  /** The completed PDF as its owner downloads it. */
  pdf: Buffer;
  /** The principal who signed by L2 within `mandate`, then the counterparty at their sign link. */
  signers: Array<{ name: string; email: string; how: 'l2' | 'browser' }>;
  mandate: Mandate;
}

/**
 * A PDF the stack issued and completed, for the verify surfaces: an NDA signed by an agent for its
 * principal (L2, within a mandate) and by a counterparty in the browser, both for real.
 */
export async function completedPdf(stack: Stack, name = 'Verified NDA'): Promise<CompletedPdf> {
  const { account, mandate } = await mandatedAccount(stack, { level: 'L2', name: 'Vera Verifier' });
  const { nda } = await seedSamples(stack, account);
  const principal = await principalOf(stack, account);
  const other = { name: 'Rey Receiver', email: `rey-${randomBase62(8).toLowerCase()}@example.test` };
  const document = await sentNda(stack, account, nda, principal, { name, other });
  const signed = await call(stack.url, 'POST', `/v1/documents/${document.document_id}/sign`, {
    key: account.key,
    body: { reason: 'As agreed' },
  });
  // 202: still being applied when the service's wait ended; the document completes all the same.
  if (signed.status !== 200 && signed.status !== 202) throw new Error(`L2 sign: ${signed.status} ${signed.text}`);
  const session = await new SignerSession(stack, document.signers[1].sign_url, other.email).verify();
  const title = nda.widgets.find((widget) => widget.role === 'Receiving Party' && widget.type === 'text')!.id;
  const browser = await session.request('POST', '/sign', {
    consent: true,
    signature: { method: 'drawn', image: dataUrl(signaturePng()) },
    values: { [title]: 'Counsel' },
  });
  if (browser.status !== 200) throw new Error(`browser sign: ${browser.status} ${browser.text}`);
  await waitForDocument(stack, account.key, document.document_id, (d) => d.status === 'completed', 'the document to complete', 60_000);
  return {
    documentId: document.document_id,
    pdf: await downloadPdf(stack, account.key, document.document_id),
    signers: [
      { name: principal.name, email: principal.email, how: 'l2' },
      { ...other, how: 'browser' },
    ],
    mandate,
  };
}

/** The PDF with one byte of a content stream changed: inside what its seals cover. */
export function tampered(pdf: Buffer): Buffer {
  const copy = Buffer.from(pdf);
  const at = copy.indexOf('stream\n', 200) + 'stream\n'.length + 5;
  if (at < 200 || at > copy.length / 2) throw new Error(`no content stream to change near the start (at ${at})`);
  copy[at] ^= 0xff;
  return copy;
}

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument } from 'pdf-lib';
import { PSEUDO_LOCALE, t, withLocale } from '../../lib/i18n';
import { formatInstant } from '../../lib/i18n/instant';
import { appendCertificatePage } from '../../lib/pdf/certificate';
import { buildSampleNda } from '../../lib/pdf/samples';
import { outsideCatalogue } from '../../test/catalogue';
import { pdfText } from '../../test/pdf-tools';
import { certificateEntry } from '../apply/complete';
import { evidenceAttachments } from './evidence';

const METHODS = ['mandate:l1', 'mandate:l2', 'browser:drawn', 'browser:typed', 'browser:uploaded', null];

/** The certificate as the completion draws it: its signers (every method, by mandate or not) and its evidence attached. */
async function certificate(signerCount: number): Promise<{ pdf: Uint8Array; data: string[] }> {
  const signers = Array.from({ length: signerCount }, (_, i) =>
    certificateEntry({
      name: `Zoë Šimůnek ${i}`,
      email: `zoe${i}@example.com`,
      signedAt: new Date(Date.UTC(2026, 4, 5, 12, i, i, i)),
      method: METHODS[i % METHODS.length],
      mandateId: i % METHODS.length < 2 ? `mdt_${i}abcdefgh` : null,
      level: i % METHODS.length === 0 ? 'l1' : 'l2',
    }),
  );
  const documentName = 'Mutual NDA — Lee & Partners';
  const pdf = await appendCertificatePage((await buildSampleNda()).pdf, {
    documentId: 'doc_4kT9xQ2mZ8',
    documentName,
    originalSha256: 'a3f1'.repeat(16),
    finalSha256: '9c0d'.repeat(16),
    completedAt: new Date('2026-05-06T07:08:09.123Z'),
    signers,
    attachments: evidenceAttachments({ receiptJws: 'a.b.c', auditTrail: Buffer.from('{}\n') } as never),
  });
  // The signers' identities and the document's title are data; the file names are the service's own names for its files.
  return { pdf, data: [documentName, ...signers.map((signer) => signer.name), 'audit-trail.json', 'receipt.jws'] };
}

describe('the certificate of completion takes its words from the catalogue', () => {
  it('shows no text outside the catalogue, on every page of a certificate with every kind of line', async () => {
    const { pdf, data } = await withLocale(PSEUDO_LOCALE, () => certificate(14));
    const pages = (await PDFDocument.load(pdf)).getPageCount();
    assert.ok(pages >= 3, `the signers continue on more pages (${pages})`);
    for (let page = 2; page <= pages; page += 1) {
      const text = await pdfText(pdf, { first: page, last: page });
      // DejaVu draws ⟦ ⟧: pdftotext reads them back, so the check sees what the page shows.
      assert.match(text, page === 2 ? /⟦Certificate of Completion⟧/ : /⟦Certificate of Completion \(continued\)⟧/);
      assert.match(text, /⟦Certificate page \d+ of \d+ · Document ID: doc_4kT9xQ2mZ8⟧/);
      assert.deepEqual(outsideCatalogue(text, data), [], `page ${page}:\n${text}`);
    }
    const all = await pdfText(pdf, { first: 2, last: pages });
    for (const line of ['⟦Signer (via authorized agent)⟧', '⟦Mandate : mdt_0abcdefgh (L1)⟧', '⟦Attached to this file⟧'])
      assert.ok(all.includes(line), line);
    assert.ok(all.includes('⟦Method: ⟦Electronic signature in the browser (⟦uploaded image⟧), e-mail verified⟧⟧'), all);
  });

  it('keeps SPEC’s lines as SPEC writes them, and the times as ISO 8601 to the millisecond', () => {
    assert.equal(t('certificate.signer.viaAgent'), 'Signer (via authorized agent)');
    assert.equal(t('certificate.signer.mandate', { mandateId: 'mdt_abc', level: 'L2' }), 'Mandate : mdt_abc (L2)');
    assert.equal(t('certificate.method.mandate', { level: 'L1' }), "Stored signature applied under the principal's mandate (L1)");
    for (let i = 0; i < 2000; i += 1) {
      const date = new Date(Date.UTC(2000, 0, 1) + Math.floor(Math.random() * 60 * 365 * 86_400_000));
      assert.equal(formatInstant(date), date.toISOString());
    }
    assert.equal(formatInstant(new Date('2026-01-01T00:00:00.000Z')), '2026-01-01T00:00:00.000Z');
  });
});

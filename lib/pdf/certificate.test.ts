import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { PDFDocument } from 'pdf-lib';
import { pdfAttachments, pdfsig, pdfText, tempDir } from '../../test/pdf-tools';
import { appendCertificatePage, type CertificateInput, type CertificateSigner } from './certificate';
import { buildSampleNda, buildSampleServicesAgreement } from './samples';
import { developmentSealer } from './sealer';

const ORIGINAL = 'a3f1'.repeat(16);
const SIGNED = '9c0d'.repeat(16);

function certificateInput(signers: CertificateSigner[]): CertificateInput {
  return {
    documentId: 'doc_4kT9xQ2mZ8',
    documentName: 'Mutual NDA — Šimůnek & Lee',
    originalSha256: ORIGINAL,
    finalSha256: SIGNED,
    completedAt: new Date('2026-05-06T07:08:09.123Z'),
    signers,
  };
}

const principal: CertificateSigner = {
  name: 'Zoë Šimůnek',
  email: 'zoe@example.com',
  signedAt: new Date('2026-05-06T07:00:00.000Z'),
  method: "Stored signature applied under the principal's mandate (L2)",
  viaAgent: { mandateId: 'mdt_abc', level: 'L2' },
};
const browserSigner: CertificateSigner = {
  name: 'Ann Lee',
  email: 'ann@example.com',
  signedAt: new Date('2026-05-05T12:00:00.000Z'),
  method: 'Electronic signature in the browser (drawn), e-mail verified',
};

async function lastPages(pdf: Uint8Array, from: number): Promise<string> {
  const pages = (await PDFDocument.load(pdf)).getPageCount();
  return pdfText(pdf, { first: from, last: pages });
}

describe('appendCertificatePage', () => {
  let nda: Uint8Array;
  before(async () => {
    nda = (await buildSampleNda()).pdf;
  });

  it('appends one page, the size of the last page, with every required line', async () => {
    const pdf = await appendCertificatePage(nda, certificateInput([browserSigner, principal]));
    const doc = await PDFDocument.load(pdf);
    assert.equal(doc.getPageCount(), 2);
    assert.deepEqual(doc.getPage(1).getSize(), { width: 612, height: 792 });
    const lines = (await pdfText(pdf, { first: 2, last: 2 })).split('\n').map((line) => line.trim());
    for (const expected of [
      'Certificate of Completion',
      'Document: Mutual NDA — Šimůnek & Lee',
      'Document ID: doc_4kT9xQ2mZ8',
      `Original SHA-256: ${ORIGINAL}`,
      `Signed SHA-256: ${SIGNED}`,
      'Completed: 2026-05-06T07:08:09.123Z',
      'Name: Zoë Šimůnek',
      'E-mail: zoe@example.com',
      'Signed: 2026-05-06T07:00:00.000Z',
      "Method: Stored signature applied under the principal's mandate (L2)",
      'Signer (via authorized agent)',
      'Mandate : mdt_abc (L2)',
      'Name: Ann Lee',
      'E-mail: ann@example.com',
      'Signed: 2026-05-05T12:00:00.000Z',
      'Method: Electronic signature in the browser (drawn), e-mail verified',
    ]) {
      assert.ok(lines.includes(expected), `the certificate has the line "${expected}"`);
    }
  });

  it('adds the mandate lines only for signers by mandate, and names no agent or key as a party', async () => {
    const l1 = { ...browserSigner, name: 'Cy Dorn', email: 'cy@example.com', viaAgent: { mandateId: 'mdt_l1xyz', level: 'L1' as const } };
    const pdf = await appendCertificatePage(nda, certificateInput([browserSigner, principal, l1]));
    const text = await pdfText(pdf, { first: 2, last: 2 });
    const lines = text.split('\n').map((line) => line.trim());
    assert.equal(lines.filter((line) => line === 'Signer (via authorized agent)').length, 2);
    assert.deepEqual(
      lines.filter((line) => line.startsWith('Mandate')),
      ['Mandate : mdt_abc (L2)', 'Mandate : mdt_l1xyz (L1)'],
    );
    assert.deepEqual(
      lines.filter((line) => /agent/i.test(line)),
      ['Signer (via authorized agent)', 'Signer (via authorized agent)'],
    );
    assert.doesNotMatch(text, /api key|\bkey\b/i);
    const browserOnly = await pdfText(await appendCertificatePage(nda, certificateInput([browserSigner])), { first: 2, last: 2 });
    assert.doesNotMatch(browserOnly, /agent|Mandate/i);
  });

  it('continues on more pages when the signers do not fit, each signer whole on one page', async () => {
    const signers = Array.from({ length: 40 }, (_, i) => ({
      ...principal,
      name: `Signer Number ${i + 1}`,
      email: `s${i + 1}@example.com`,
      viaAgent: { mandateId: `mdt_${i + 1}`, level: 'L2' as const },
    }));
    const pdf = await appendCertificatePage(nda, certificateInput(signers));
    const doc = await PDFDocument.load(pdf);
    assert.ok(doc.getPageCount() >= 4, `${doc.getPageCount()} pages`);
    for (let page = 2; page <= doc.getPageCount(); page += 1) {
      const lines = (await pdfText(pdf, { first: page, last: page })).split('\n').map((line) => line.trim());
      assert.ok(lines.some((line) => line.startsWith('Certificate of Completion')));
      const names = lines.filter((line) => line.startsWith('Name: Signer Number')).length;
      const mandates = lines.filter((line) => line.startsWith('Mandate : ')).length;
      assert.equal(names, mandates, `page ${page}: every signer's block is whole`);
    }
    const all = await lastPages(pdf, 2);
    for (const signer of signers)
      assert.ok(all.includes(`Name: ${signer.name}\n`) && all.includes(`Mandate : ${signer.viaAgent.mandateId} (L2)`), signer.name);
  });

  it('prints what a signer typed on one line of its labelled field, cut to fit: padding cannot forge the service’s lines', async () => {
    const padding = ' '.repeat(400);
    const forger: CertificateSigner = {
      ...browserSigner,
      name: `Eve Mallory${padding}Signer (via authorized agent)${padding}Mandate : mdt_forged (L2)`,
      email: `eve@example.com\nSigner (via authorized agent)`,
    };
    const pdf = await appendCertificatePage(nda, certificateInput([forger]));
    const lines = (await pdfText(pdf, { first: 2, last: 2 })).split('\n').map((line) => line.trim());
    assert.ok(!lines.includes('Signer (via authorized agent)'), lines.join('\n'));
    assert.ok(!lines.some((line) => line.startsWith('Mandate')), lines.join('\n'));
    // Padding collapses to one space: the whole name is one line of its field.
    assert.ok(lines.includes('Name: Eve Mallory Signer (via authorized agent) Mandate : mdt_forged (L2)'), lines.join('\n'));
    assert.match(lines.find((line) => line.startsWith('E-mail: '))!, /^E-mail: eve@example\.com Signer/);
    // A name too long for the line is cut with an ellipsis, never wrapped.
    const long = await appendCertificatePage(nda, certificateInput([{ ...browserSigner, name: 'Bartholomew '.repeat(30) }]));
    const longLines = (await pdfText(long, { first: 2, last: 2 })).split('\n').map((line) => line.trim());
    const name = longLines.find((line) => line.startsWith('Name: Bartholomew'));
    assert.ok(name?.endsWith('…'), `cut with an ellipsis: ${name}`);
    assert.equal(longLines.filter((line) => line.startsWith('Bartholomew')).length, 0, 'nothing wrapped onto a next line');
  });

  it('attaches the evidence and names it on the certificate', async () => {
    const trail = Buffer.from('{"entries": []}\n');
    const pdf = await appendCertificatePage(nda, {
      ...certificateInput([browserSigner]),
      attachments: [
        { name: 'audit-trail.json', mimeType: 'application/json', description: 'Audit trail of the document', bytes: trail },
        { name: 'receipt.jws', mimeType: 'application/jose', description: 'Completion receipt', bytes: Buffer.from('a.b.c') },
      ],
    });
    const attached = await pdfAttachments(pdf);
    assert.deepEqual(Object.keys(attached).sort(), ['audit-trail.json', 'receipt.jws']);
    assert.deepEqual(attached['audit-trail.json'], trail);
    const lines = (await pdfText(pdf, { first: 2, last: 2 })).split('\n').map((line) => line.trim());
    assert.ok(lines.includes('Attached to this file'));
    assert.ok(lines.includes('audit-trail.json: Audit trail of the document'));
    assert.ok(lines.includes('receipt.jws: Completion receipt'));
  });

  it('takes the last page size of an A4 document and the result seals and verifies', async () => {
    const agreement = (await buildSampleServicesAgreement()).pdf;
    const pdf = await appendCertificatePage(agreement, certificateInput([principal, browserSigner]));
    const doc = await PDFDocument.load(pdf);
    assert.equal(doc.getPageCount(), 51);
    const size = doc.getPage(50).getSize();
    assert.deepEqual([Math.round(size.width), Math.round(size.height)], [595, 842]);
    const sealer = await developmentSealer(await tempDir());
    const { report, valid } = await pdfsig((await sealer.certify(pdf, { reason: 'Completed' })).pdf);
    assert.ok(valid, report);
  });

  it('keeps each hash on one line on a narrow page', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([300, 420]);
    const pdf = await appendCertificatePage(await doc.save(), certificateInput([principal]));
    const lines = (await pdfText(pdf, { first: 2, last: 2 })).split('\n').map((line) => line.trim());
    assert.ok(lines.includes(`Original SHA-256: ${ORIGINAL}`));
    assert.ok(lines.includes(`Signed SHA-256: ${SIGNED}`));
  });
});

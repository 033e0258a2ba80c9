// What each corpus case claims to be, checked on its bytes with qpdf, pdfsig, pdftotext and openssl
// (tools.ts): a builder that stops making what it says fails here, before a verifier is judged on it.
import assert from 'node:assert/strict';
import { REPLACED_TEXT } from './cases-incremental';
import { HIDDEN_DOCUMENT_TEXT, HIDDEN_TEXT, SHOWN_TEXT } from './cases-shadow';
import { GAP_REASON_ALTERED, WRAPPED_TEXT } from './cases-structure';
import type { CorpusPdf } from './kit';
import {
  type ByteRange,
  type Examined,
  examine,
  objectValue,
  ocspText,
  rangeParts,
  revisionCount,
  streamData,
  textOf,
  verifyRangeCms,
  writtenByteRanges,
} from './tools';

export interface ClaimContext {
  built: CorpusPdf;
  examined: Examined;
  cases: Map<string, CorpusPdf>;
}

export type Claim = (context: ClaimContext) => Promise<void>;

const YEAR = 365.25 * 86_400_000;
const NDA_CLAUSE = 'Confidential Information';

/** Each signature pdfsig reaches verifies over the ranges it declares (openssl): the attacks leave the CMS intact. */
async function signaturesVerify({ built, examined }: ClaimContext): Promise<void> {
  for (const [index, signature] of examined.pdfsig.signatures.entries()) {
    const check = await verifyRangeCms(built.pdf, signature.ranges!);
    assert.ok(check.ok, `${built.name} #${index + 1}: ${check.output}`);
  }
}

/** The file is `base` byte for byte, then `added` more revisions. */
function extendsCase(context: ClaimContext, baseName: string, added = 1): void {
  const base = context.cases.get(baseName)!.pdf;
  assert.ok(context.built.pdf.subarray(0, base.length).equals(base), `${context.built.name} starts with ${baseName}'s bytes`);
  assert.equal(revisionCount(context.built.pdf), revisionCount(base) + added, `${added} revision(s) appended to ${baseName}`);
}

/** The last revision's bytes: after the one-but-last %%EOF. */
function lastSection(pdf: Buffer): string {
  const text = pdf.toString('latin1');
  const eofs = [...text.matchAll(/%%EOF/g)].map((match) => match.index!);
  return text.slice(eofs.at(-2)! + '%%EOF'.length);
}

/** The signed revision of a signature: the file up to the end of its second range. */
function signedRevision(pdf: Buffer, [, , c, d]: ByteRange): Buffer {
  return pdf.subarray(0, c + d);
}

function field(examined: Examined, name: string) {
  const found = examined.json.acroform.fields.find((item) => item.fullname === name);
  assert.ok(found, `a field ${name}`);
  return found;
}

/** The DocMDP permission of the certification signature: its dictionary's /Reference, named by the catalog's /Perms. */
function docMdp(examined: Examined): number {
  const root = examined.json.objects.trailer.value['/Root'];
  const reference = objectValue(examined, root)['/Perms']['/DocMDP'];
  return objectValue(examined, reference)['/Reference'][0]['/TransformParams']['/P'];
}

/** Own-approval's shape: one signature by the development seal over the whole first revision, timestamped by the development TSA. */
async function sealedByTheService(context: ClaimContext, { total }: { total: boolean }): Promise<void> {
  const [signature] = context.examined.pdfsig.signatures;
  assert.equal(signature.commonName, 'Document seal (development)');
  assert.equal(signature.total, total);
  const check = await verifyRangeCms(context.built.pdf, signature.ranges!);
  assert.ok(check.ok, check.output);
  assert.equal(check.timestamp?.imprintMatches, true, 'a signature timestamp over the signature value');
  assert.equal(check.timestamp?.signerSelfSigned, false, 'issued by the development CA');
}

async function certifiedByTheService(context: ClaimContext): Promise<void> {
  const [certification, timestamp] = context.examined.pdfsig.signatures;
  assert.equal(docMdp(context.examined), 1);
  assert.equal(certification.commonName, 'Document seal (development)');
  const token = await verifyRangeCms(context.built.pdf, timestamp.ranges!);
  assert.ok(token.ok, token.output);
  assert.equal(token.signer?.commonName, 'Timestamp authority (development)');
}

/** The page shows `shown` and no longer `gone`, where the signed revision showed `gone`. */
async function textChanged(context: ClaimContext, shown: string, gone: string): Promise<void> {
  const range = context.examined.pdfsig.signatures[0]?.ranges ?? writtenByteRanges(context.built.pdf)[0];
  const [signed, now] = await Promise.all([textOf(signedRevision(context.built.pdf, range)), textOf(context.built.pdf)]);
  assert.ok(signed.includes(gone), `the signed revision shows "${gone}"`);
  assert.ok(now.includes(shown), `the file shows "${shown}": ${now.slice(0, 300)}`);
  assert.ok(!now.includes(gone), `the file no longer shows "${gone}"`);
}

async function pageContents(pdf: Buffer): Promise<string[]> {
  return (await examine('contents', pdf)).json.pages[0].contents;
}

export const CLAIMS: Record<string, Claim> = {
  async 'own-approval'(context) {
    assert.equal(revisionCount(context.built.pdf), 1);
    await sealedByTheService(context, { total: true });
  },
  async 'own-certified'(context) {
    assert.equal(revisionCount(context.built.pdf), 3, 'certification, DSS, document timestamp');
    await certifiedByTheService(context);
    await signaturesVerify(context);
    const [certification, timestamp] = context.examined.pdfsig.signatures;
    assert.equal(certification.total, false);
    assert.equal(timestamp.total, true);
  },
  async 'foreign-self-signed'(context) {
    const [signature] = context.examined.pdfsig.signatures;
    assert.equal(signature.commonName, 'Agents API seal');
    const check = await verifyRangeCms(context.built.pdf, signature.ranges!);
    assert.ok(check.ok, check.output);
    assert.deepEqual(check.signer, { commonName: 'Agents API seal', selfSigned: true });
    assert.equal(check.timestamp, undefined, 'no timestamp: trust is the only fault');
  },
  async 'certified-overlay'(context) {
    extendsCase(context, 'own-certified');
    await signaturesVerify(context);
    const before = await pageContents(context.cases.get('own-certified')!.pdf);
    const after = context.examined.json.pages[0].contents;
    assert.deepEqual(after.slice(0, before.length), before);
    assert.equal(after.length, before.length + 1);
    const painted = await streamData(context.examined.file, Number.parseInt(after.at(-1)!, 10));
    assert.match(painted.toString('latin1'), /1 1 1 rg .* re f/, 'a white box');
  },
  async 'certified-overlay-resigned'(context) {
    extendsCase(context, 'certified-overlay');
    await signaturesVerify(context);
    const last = context.examined.pdfsig.signatures[2];
    assert.equal(last.commonName, 'Agents API seal');
    assert.equal(last.total, true, 'the foreign signature covers the whole file');
    assert.equal((await verifyRangeCms(context.built.pdf, last.ranges!)).signer?.selfSigned, true);
  },
  async 'certified-new-page'(context) {
    extendsCase(context, 'own-certified');
    await signaturesVerify(context);
    assert.equal(context.examined.json.pages.length, 2);
  },
  async 'certified-field-value'(context) {
    assert.equal(revisionCount(context.built.pdf), 4, 'certification, DSS, document timestamp, the filled field');
    await certifiedByTheService(context);
    await signaturesVerify(context);
    assert.equal(field(context.examined, 'Amount').value, 'u:EUR 100000');
    assert.match(lastSection(context.built.pdf), /\/AP << \/N \d+ 0 R >>|\/AP <<\s*\/N \d+ 0 R\s*>>/, 'a new appearance in the update');
  },
  async 'certified-annotation'(context) {
    extendsCase(context, 'own-certified');
    await signaturesVerify(context);
    const page = objectValue(context.examined, context.examined.json.pages[0].object);
    const annotations = (page['/Annots'] as string[]).map((reference) => objectValue(context.examined, reference));
    const square = annotations.find((annotation) => annotation['/Subtype'] === '/Square');
    assert.ok(square?.['/AP']?.['/N'], 'a Square annotation with an appearance');
  },
  async 'certified-p2-form-fill'(context) {
    await signaturesVerify(context);
    assert.equal(docMdp(context.examined), 2);
    const [certification, approval] = context.examined.pdfsig.signatures;
    assert.equal(certification.commonName, 'Document seal (development)');
    assert.equal(approval.commonName, 'Document seal (development)');
    assert.equal(approval.total, false, 'the form was filled after the approval');
    assert.equal(field(context.examined, 'Amount').value, 'u:EUR 250');
    assert.equal(revisionCount(context.built.pdf), 3);
  },
  async 'approval-form-fill'(context) {
    await sealedByTheService(context, { total: false });
    assert.equal(field(context.examined, 'Amount').value, 'u:EUR 250');
    assert.equal(revisionCount(context.built.pdf), 2);
  },
  async 'approval-content-change'(context) {
    extendsCase(context, 'own-approval');
    await sealedByTheService(context, { total: false });
    assert.equal(context.examined.json.pages[0].contents.length, 1);
    await textChanged(context, REPLACED_TEXT, NDA_CLAUSE);
  },
  async 'isa-new-xref-only'(context) {
    extendsCase(context, 'own-approval');
    await sealedByTheService(context, { total: false });
    const contents = await pageContents(context.cases.get('own-approval')!.pdf);
    assert.deepEqual(context.examined.json.pages[0].contents, contents, 'the page still names the same content object');
    const bodies = [...lastSection(context.built.pdf).matchAll(/(\d+) 0 obj/g)].map((match) => `${match[1]} 0 R`);
    assert.deepEqual(bodies, contents, 'the update holds only a new body of that object');
    await textChanged(context, REPLACED_TEXT, NDA_CLAUSE);
  },
  async 'sig-dict-outside'(context) {
    extendsCase(context, 'own-approval');
    await sealedByTheService(context, { total: false });
    const base = context.cases.get('own-approval')!.pdf.toString('latin1');
    const update = lastSection(context.built.pdf);
    const byteRange = /\/ByteRange \[[^\]]*\]/.exec(base)![0];
    const contents = /\/Contents <[0-9a-fA-F]+>/.exec(base)![0];
    assert.ok(update.includes(byteRange) && update.includes(contents), 'the same /ByteRange and /Contents, outside the signed bytes');
    const value = field(context.examined, 'Seal').value as string;
    assert.equal(objectValue(context.examined, value)['/Reason'], 'u:Approved without reservation');
  },
  async 'gap-larger-than-contents'(context) {
    const [signature] = context.examined.pdfsig.signatures;
    const { gap } = rangeParts(context.built.pdf, signature.ranges!);
    const afterHex = gap.subarray(gap.indexOf('>') + 1).toString('latin1');
    assert.ok(afterHex.includes(`/Reason (${GAP_REASON_ALTERED})`), `the gap holds bytes outside /Contents: ${JSON.stringify(afterHex)}`);
    await signaturesVerify(context);
  },
  async 'not-in-acroform'(context) {
    assert.ok(!context.examined.json.acroform.hasacroform || context.examined.json.acroform.fields.length === 0);
    assert.match(context.examined.pdfsig.report, /does not contain any signatures/);
    const ranges = writtenByteRanges(context.built.pdf);
    assert.equal(ranges.length, 1);
    assert.equal(ranges[0][2] + ranges[0][3], context.built.pdf.length, 'the range ends at the file end');
    const check = await verifyRangeCms(context.built.pdf, ranges[0]);
    assert.ok(check.ok, check.output);
    assert.equal(check.signer?.commonName, 'Document seal (development)');
  },
  async 'untrusted-signature-timestamp'(context) {
    const check = await verifyRangeCms(context.built.pdf, context.examined.pdfsig.signatures[0].ranges!);
    assert.ok(check.ok, check.output);
    assert.equal(check.signer?.commonName, 'Document seal (development)');
    assert.equal(check.timestamp?.imprintMatches, true);
    assert.equal(check.timestamp?.signerSelfSigned, true, 'a self-signed authority');
    const age = Date.now() - check.timestamp!.time.getTime();
    assert.ok(Math.abs(age - 10 * YEAR) < 3 * 86_400_000, `the token claims ten years ago: ${check.timestamp!.time.toISOString()}`);
  },
  async 'untrusted-document-timestamp'(context) {
    extendsCase(context, 'own-approval');
    const token = await verifyRangeCms(context.built.pdf, context.examined.pdfsig.signatures[1].ranges!);
    assert.ok(token.ok, token.output);
    assert.deepEqual(token.signer, { commonName: 'Timestamp authority', selfSigned: true });
    assert.equal(context.examined.pdfsig.signatures[1].total, true);
  },
  async 'testpki-certified'(context) {
    await signaturesVerify(context);
    assert.equal(context.examined.pdfsig.signatures[0].commonName, 'Svc Test Document Seal');
    for (const text of await dssOcsps(context.examined)) assert.match(text, /Cert Status: good/);
  },
  async 'revoked-seal'(context) {
    await signaturesVerify(context);
    assert.equal(context.examined.pdfsig.signatures[0].commonName, 'Svc Test Document Seal');
    const revoked = (await dssOcsps(context.examined)).find((text) => /Cert Status: revoked/.test(text));
    assert.ok(revoked, 'the DSS holds an OCSP answer REVOKED');
    const revokedAt = new Date(/Revocation Time: (.*)/.exec(revoked)![1]);
    const check = await verifyRangeCms(context.built.pdf, context.examined.pdfsig.signatures[0].ranges!);
    assert.ok(
      revokedAt < check.timestamp!.time,
      `revoked ${revokedAt.toISOString()} before the signature timestamp ${check.timestamp!.time.toISOString()}`,
    );
  },
  async 'signature-wrapping'(context) {
    const [signature] = context.examined.pdfsig.signatures;
    const [, b, c, d] = signature.ranges!;
    assert.equal(c + d, context.built.pdf.length, 'the declared ranges end at the file end');
    const check = await verifyRangeCms(context.built.pdf, signature.ranges!);
    assert.ok(check.ok, `the CMS verifies over the wrapped ranges: ${check.output}`);
    // The old /ByteRange is still written, inside the moved range, and covers other bytes now.
    const stale = writtenByteRanges(context.built.pdf).filter((range) => range.join() !== signature.ranges!.join());
    assert.equal(stale.length, 1);
    assert.equal(stale[0][1], b);
    assert.ok(stale[0][2] < c, 'the original second range started before the moved one');
    assert.equal((await verifyRangeCms(context.built.pdf, stale[0])).ok, false, 'the stale range no longer verifies');
    assert.ok((await textOf(context.built.pdf)).includes(WRAPPED_TEXT));
  },
  async 'usf-no-contents'(context) {
    const [signature] = context.examined.pdfsig.signatures;
    assert.deepEqual(signature.ranges, [0, 0, 0, 0]);
    assert.equal(signature.valid, false);
    assert.match(context.built.pdf.toString('latin1'), /\/Contents <>/);
  },
  async 'shadow-hide'(context) {
    await sealedByTheService(context, { total: false });
    assert.equal(revisionCount(context.built.pdf), 2);
    await textChanged(context, HIDDEN_TEXT, SHOWN_TEXT);
  },
  async 'shadow-hide-xref'(context) {
    await signaturesVerify(context);
    const signed = signedRevision(context.built.pdf, context.examined.pdfsig.signatures[0].ranges!);
    const overlay = Number.parseInt((await pageContents(signed)).at(-1)!, 10);
    const bodies = [...signed.toString('latin1').matchAll(new RegExp(`(?:^|\\n)${overlay} 0 obj`, 'g'))];
    assert.equal(bodies.length, 2, `two bodies of object ${overlay} in the signed revision`);
    const update = lastSection(context.built.pdf);
    assert.doesNotMatch(update, / obj\b/, 'the update holds no object body');
    const firstBody = bodies[0].index! + (bodies[0][0].startsWith('\n') ? 1 : 0);
    assert.match(update, new RegExp(`${overlay} 1\\n${String(firstBody).padStart(10, '0')} 00000 n`), 'its xref points at the first body');
    await textChanged(context, HIDDEN_TEXT, SHOWN_TEXT);
  },
  async 'shadow-replace'(context) {
    extendsCase(context, 'own-approval');
    await sealedByTheService(context, { total: false });
    await textChanged(context, 'two (9) years', 'two (2) years');
  },
  async 'shadow-hide-and-replace'(context) {
    await signaturesVerify(context);
    const signed = signedRevision(context.built.pdf, context.examined.pdfsig.signatures[0].ranges!);
    assert.ok(signed.toString('latin1').includes(HIDDEN_DOCUMENT_TEXT), 'the hidden document is in the signed bytes');
    const update = lastSection(context.built.pdf);
    assert.doesNotMatch(update, / obj\b/, 'the update holds no object body');
    const signedRoot = /\/Root (\d+ \d+ R)/.exec(signed.toString('latin1').slice(signed.lastIndexOf('trailer')))![1];
    assert.notEqual(/\/Root (\d+ \d+ R)/.exec(update)![1], signedRoot, 'only the trailer /Root changed');
    await textChanged(context, HIDDEN_DOCUMENT_TEXT, NDA_CLAUSE);
  },
};

/** The OCSP answers in the DSS, as `openssl ocsp -resp_text` prints them. */
async function dssOcsps(examined: Examined): Promise<string[]> {
  const root = objectValue(examined, examined.json.objects.trailer.value['/Root']);
  const dss = typeof root['/DSS'] === 'string' ? objectValue(examined, root['/DSS']) : root['/DSS'];
  const references = (dss?.['/OCSPs'] ?? []) as string[];
  assert.ok(references.length > 0, 'the DSS holds OCSP answers');
  return Promise.all(references.map(async (reference) => ocspText(await streamData(examined.file, Number.parseInt(reference, 10)))));
}

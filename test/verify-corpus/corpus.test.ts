// The corpus files are what their builders say, checked with tools independent of the service's code:
// qpdf opens each, pdfsig finds the signatures a reader finds, openssl verifies each CMS over its
// declared ranges, and the attacked bytes differ from their base exactly as described. The verdicts
// themselves are the verifier's to reach; pdfsig's and pdfcpu's are logged beside each case.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pdfcpuCacheDirectory } from '../../runtime/pdfcpu';
import { writeTemp } from '../pdf-tools';
import { pdfcpuValidate } from '../pdf-validators';
import { CLAIMS } from './claims';
import { buildCorpus, CASES, type Corpus, type CorpusPdf } from './corpus';
import { type Examined, examine, objectValue } from './tools';

/** pdfcpu when it is built already (PDFCPU_BINARY or the cache): the corpus test never builds it. */
function pdfcpuBinary(): string | undefined {
  const binary = process.env.PDFCPU_BINARY ?? path.join(pdfcpuCacheDirectory(), 'pdfcpu');
  return existsSync(binary) ? binary : undefined;
}

describe('the verify corpus', () => {
  let corpus: Corpus;
  const cases = new Map<string, CorpusPdf>();
  let anchorsFile: string;

  before(async () => {
    corpus = await buildCorpus();
    for (const built of corpus.cases) cases.set(built.name, built);
    anchorsFile = await writeTemp('corpus-anchors.pem', Buffer.from(corpus.anchorsPem.join('\n')));
  });
  after(() => corpus?.close());

  it('holds every case once, each expectation consistent with its verdict, and both roots among the anchors', () => {
    assert.deepEqual(
      corpus.cases.map((built) => built.name),
      Object.keys(CASES),
    );
    assert.equal(corpus.anchorsPem.length, 3, 'the development CA and the two test PKI roots');
    for (const { name, expect } of corpus.cases) {
      const indications = expect.signatures.map((signature) => signature.indication);
      if (expect.verdict === 'valid')
        assert.ok(
          indications.every((indication) => indication === 'TOTAL-PASSED'),
          name,
        );
      if (expect.verdict === 'invalid') assert.ok(indications.includes('TOTAL-FAILED'), name);
      if (expect.verdict === 'indeterminate') assert.ok(!indications.includes('TOTAL-FAILED'), name);
      assert.ok(CLAIMS[name], `${name} has its claims checked`);
    }
  });

  for (const name of Object.keys(CASES)) {
    it(`${name}: opens in qpdf, pdfsig finds its signatures, and it is built as described`, async () => {
      const built = cases.get(name)!;
      const examined = await examine(name, built.pdf);
      assert.equal(examined.qpdf.code, 0, `qpdf --check: ${examined.qpdf.stdout}${examined.qpdf.stderr}`);
      const reachable = built.expect.signatures.filter((signature) => signature.reachable !== false);
      assert.equal(examined.pdfsig.signatures.length, reachable.length, examined.pdfsig.report);
      // Each signature pdfsig reaches, by its field's value as qpdf resolves it, is the kind expected, in /ByteRange order.
      const found = [...examined.pdfsig.signatures]
        .sort((x, y) => (x.ranges ? x.ranges[2] + x.ranges[3] : 0) - (y.ranges ? y.ranges[2] + y.ranges[3] : 0))
        .map((signature) => kindOf(examined, signature.field));
      assert.deepEqual(
        found,
        reachable.map((signature) => signature.kind),
      );
      await CLAIMS[name]({ built, examined, cases });
      await logVerdicts(name, examined, anchorsFile);
    });
  }
});

/**
 * The kind of the signature dictionary a signature field's /V resolves to, in qpdf's view of the
 * objects (its "acroform" list leaves out fields with no widget in a page's /Annots, as libpdf's).
 */
function kindOf(examined: Examined, fieldName: string): string {
  const field = Object.values(examined.json.objects).find(
    (object: any) => object?.value?.['/FT'] === '/Sig' && object.value['/T'] === `u:${fieldName}`,
  ) as { value: Record<string, any> } | undefined;
  const value = field ? objectValue(examined, field.value['/V']) : undefined;
  if (!value) return 'none';
  if (value['/Type'] === '/DocTimeStamp' || value['/SubFilter'] === '/ETSI.RFC3161') return 'timestamp';
  const docMdp = (value['/Reference'] ?? []).some((reference: any) => reference['/TransformMethod'] === '/DocMDP');
  return docMdp ? 'certification' : 'approval';
}

/** pdfsig's and pdfcpu's word on the case, for the reader of the test log. */
async function logVerdicts(name: string, examined: Examined, anchorsFile: string): Promise<void> {
  const sig = examined.pdfsig.signatures.map((signature, index) => {
    const validation = /Signature Validation: (.*)/.exec(signature.text)?.[1] ?? '?';
    const certificate = /Certificate Validation: (.*)/.exec(signature.text)?.[1];
    return `#${index + 1} ${signature.commonName}: ${validation}${certificate ? ` / ${certificate}` : ''}${signature.total ? ' (total)' : ''}`;
  });
  const lines = [`[corpus] ${name}: pdfsig ${sig.length === 0 ? 'no signatures' : sig.join('; ')}`];
  const binary = pdfcpuBinary();
  if (binary) {
    const report = await pdfcpuValidate(binary, examined.file, { trustedCaPem: anchorsFile, revocation: 'ocsp' });
    const verdicts = report.signatures.map((signature) => `${signature.type}: ${signature.status} (${signature.reason})`);
    lines.push(
      `[corpus] ${name}: pdfcpu ${verdicts.length === 0 ? (/no signatures present/.test(report.output) ? 'no signatures present' : report.output.trim()) : verdicts.join('; ')}`,
    );
  }
  console.log(lines.join('\n'));
}

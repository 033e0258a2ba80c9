// The verifier against the corpus of test/verify-corpus: the service's own seals, seals it must not
// trust, and the published attacks on PDF signatures, each built in the test. Every file must get the
// verdict and the ETSI indications a standards-following validator gives; where pdfcpu gives a
// verdict on the same file, it is printed beside ours.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensurePdfcpu } from '../../../runtime/pdfcpu';
import { writeTemp } from '../../../test/pdf-tools';
import { pdfcpuValidate } from '../../../test/pdf-validators';
import { verifyOffline } from '../../../test/verifier';
import { buildCorpus, CASES, type Corpus } from '../../../test/verify-corpus/corpus';

describe('the verifier on the corpus of signed and attacked PDFs', () => {
  let corpus: Corpus;
  let pdfcpu: string;
  let anchorsFile: string;

  before(async () => {
    [corpus, pdfcpu] = await Promise.all([buildCorpus(), ensurePdfcpu({ explicit: process.env.PDFCPU_BINARY })]);
    anchorsFile = await writeTemp(`corpus-anchors-${process.pid}.pem`, Buffer.from(corpus.anchorsPem.join('\n')));
  });
  after(() => corpus?.close());

  for (const name of Object.keys(CASES)) {
    it(`judges ${name} as a relying party must`, async () => {
      const item = corpus.cases.find((candidate) => candidate.name === name)!;
      const report = verifyOffline(item.pdf, corpus.anchorsPem);
      const detail = `${item.description}\n${JSON.stringify(report, null, 1)}`;
      const theirs = await pdfcpuValidate(pdfcpu, await writeTemp(`corpus-${name}.pdf`, item.pdf), {
        trustedCaPem: anchorsFile,
        revocation: 'ocsp',
      });
      console.log(
        `${name}: ours ${report.verdict} [${report.signatures.map((signature) => `${signature.kind} ${signature.indication}${signature.sub_indication ? ` ${signature.sub_indication}` : ''}`).join('; ')}]` +
          ` | pdfcpu [${theirs.signatures.map((signature) => signature.status).join('; ') || 'no signature'}]`,
      );
      assert.equal(report.verdict, item.expect.verdict, detail);
      assert.equal(report.signatures.length, item.expect.signatures.length, detail);
      item.expect.signatures.forEach((expected, index) => {
        const signature = report.signatures[index];
        assert.equal(signature.kind, expected.kind, `signature ${index + 1}: ${detail}`);
        assert.equal(signature.indication, expected.indication, `signature ${index + 1}: ${detail}`);
        if (expected.subIndication) assert.equal(signature.sub_indication, expected.subIndication, `signature ${index + 1}: ${detail}`);
        assert.equal(signature.reachable, expected.reachable ?? true, `signature ${index + 1}: ${detail}`);
        if (expected.timestamp) {
          assert.equal(signature.timestamp?.indication, expected.timestamp.indication, `its timestamp: ${detail}`);
          if (expected.timestamp.subIndication)
            assert.equal(signature.timestamp?.sub_indication, expected.timestamp.subIndication, `its timestamp: ${detail}`);
          assert.equal(signature.time_source, 'none', 'an untrusted timestamp proves no time');
        }
        if (expected.indication === 'TOTAL-FAILED' && expected.subIndication === 'FORMAT_FAILURE')
          assert.ok(signature.problem, 'a failure says why');
      });
    });
  }

  it('names the change and its revision: an overlay after certification is "modified after certification", a disallowed content change', () => {
    const overlay = corpus.cases.find((item) => item.name === 'certified-overlay')!;
    const [certification] = verifyOffline(overlay.pdf, corpus.anchorsPem).signatures;
    assert.match(certification.problem!, /^modified after certification: in revision 4, page 1's \/Contents changed/);
    const disallowed = certification.changes_after.filter((change) => !change.allowed);
    assert.ok(
      disallowed.length > 0 && disallowed.every((change) => change.revision === 4 && change.level === 'other'),
      JSON.stringify(certification.changes_after),
    );
    const fill = corpus.cases.find((item) => item.name === 'approval-form-fill')!;
    const [approval] = verifyOffline(fill.pdf, corpus.anchorsPem).signatures;
    assert.deepEqual(
      approval.changes_after.map((change) => [change.level, change.allowed]),
      [['form_fill', true]],
      'filling a field after an approval signature is form filling, and allowed',
    );
  });

  it('never calls a corpus file valid without a trust anchor, and calls nothing valid that the corpus expects otherwise', () => {
    for (const item of corpus.cases) {
      const untrusting = verifyOffline(item.pdf, []);
      assert.notEqual(untrusting.verdict, 'valid', `${item.name} without anchors`);
      if (item.expect.verdict !== 'valid') assert.notEqual(verifyOffline(item.pdf, corpus.anchorsPem).verdict, 'valid', item.name);
    }
  });
});

// The corpus of signed PDFs the verifier (POST /v1/verify) must judge: the service's own seals, seals
// it must not trust, and the published attacks on PDF signatures, each built here from the sample NDA.
// One case alone: `const kit = await corpusKit(); const pdf = await shadowHide(kit); await kit.close();`
// (a case that extends another builds that one in the same kit). Files: incremental.ts (raw revisions),
// keys.ts, signing.ts (test-side signing), documents.ts (base documents, updates), cases-*.ts.
import {
  approvalFormFill,
  certifiedAnnotation,
  certifiedFieldValue,
  certifiedNewPage,
  certifiedOverlay,
  certifiedOverlayResigned,
  certifiedP2FormFill,
} from './cases-certified';
import { approvalContentChange, isaNewXrefOnly, sigDictOutside } from './cases-incremental';
import { shadowHide, shadowHideAndReplace, shadowHideXref, shadowReplace } from './cases-shadow';
import { gapLargerThanContents, notInAcroForm, signatureWrapping, usfNoContents } from './cases-structure';
import {
  foreignSelfSigned,
  ownApproval,
  ownCertified,
  revokedSeal,
  testPkiCertified,
  untrustedDocumentTimestamp,
  untrustedSignatureTimestamp,
} from './cases-trust';
import { type Corpus, type CorpusKit, type CorpusPdf, corpusKit } from './kit';

export * from './cases-certified';
export * from './cases-incremental';
export * from './cases-shadow';
export * from './cases-structure';
export * from './cases-trust';
export type { Corpus, CorpusKit, CorpusPdf, Expectation, ExpectedSignature, Indication } from './kit';
export { corpusKit } from './kit';

export type CaseBuilder = (kit: CorpusKit) => Promise<CorpusPdf>;

/** Every case by name, in the order the corpus lists them. */
export const CASES: Record<string, CaseBuilder> = {
  'own-approval': ownApproval,
  'own-certified': ownCertified,
  'foreign-self-signed': foreignSelfSigned,
  'certified-overlay': certifiedOverlay,
  'certified-overlay-resigned': certifiedOverlayResigned,
  'certified-new-page': certifiedNewPage,
  'certified-field-value': certifiedFieldValue,
  'certified-annotation': certifiedAnnotation,
  'certified-p2-form-fill': certifiedP2FormFill,
  'approval-form-fill': approvalFormFill,
  'approval-content-change': approvalContentChange,
  'isa-new-xref-only': isaNewXrefOnly,
  'sig-dict-outside': sigDictOutside,
  'gap-larger-than-contents': gapLargerThanContents,
  'not-in-acroform': notInAcroForm,
  'untrusted-signature-timestamp': untrustedSignatureTimestamp,
  'untrusted-document-timestamp': untrustedDocumentTimestamp,
  'testpki-certified': testPkiCertified,
  'revoked-seal': revokedSeal,
  'signature-wrapping': signatureWrapping,
  'usf-no-contents': usfNoContents,
  'shadow-hide': shadowHide,
  'shadow-hide-xref': shadowHideXref,
  'shadow-replace': shadowReplace,
  'shadow-hide-and-replace': shadowHideAndReplace,
};

/** The cases that start openssl PKIs on loopback (test/pki.ts): a few seconds, and `openssl` on PATH. */
export const TEST_PKI_CASES = ['testpki-certified', 'revoked-seal'];

/**
 * Builds the corpus: every case, or those named in `only`; without `testPki` (default true) the two
 * test-PKI cases are left out. close() stops the test PKIs' servers and removes the temporary keys.
 * The revoked-seal case's OCSP responder answers only until then.
 */
export async function buildCorpus(options: { testPki?: boolean; only?: string[] } = {}): Promise<Corpus> {
  const names = (options.only ?? Object.keys(CASES)).filter((name) => options.testPki !== false || !TEST_PKI_CASES.includes(name));
  for (const name of names) if (!CASES[name]) throw new Error(`no corpus case ${name}`);
  const kit = await corpusKit();
  try {
    const cases: CorpusPdf[] = [];
    // One at a time: the cases that extend own-approval or own-certified share its build.
    for (const name of names) cases.push(await CASES[name](kit));
    return { anchorsPem: kit.anchorsPem, cases, close: () => kit.close() };
  } catch (error) {
    await kit.close();
    throw error;
  }
}

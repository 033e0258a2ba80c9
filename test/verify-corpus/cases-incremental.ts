// Incremental saving attacks (Mladenov et al. 2019) on the service's approval seal: the signed bytes
// stay intact and verify, and an update appended after them changes what a reader shows.
import { PDFArray, PDFDict, PDFName, type PDFRef } from 'pdf-lib';
import { ownApprovalPdf } from './cases-trust';
import { contentNumbers, firstPage, loadAll, pageFont, textContent, textWith, updatePageContents } from './documents';
import { appendUpdate, findObject, streamBody } from './incremental';
import { type CorpusKit, type CorpusPdf, corpusPdf, described, expectation, SAID } from './kit';

/** What every change after own-approval must come to: the one approval signature fails. */
export const BROKEN_APPROVAL = expectation('invalid', ['approval', 'TOTAL-FAILED', 'FORMAT_FAILURE']);

/** What the tools said of own-approval plus one update: nothing about the update. */
export const SAID_APPROVAL_CHANGED = {
  pdfsig: `1 signature, ${SAID.ownValid}, 'Not total document signed'.`,
  pdfcpu: `${SAID.revocationUnknown}, 'DocModified: unknown'.`,
};

/** The text the attacks put on page 1. */
export const REPLACED_TEXT = 'This agreement is void: the Receiving Party may disclose everything.';

export async function approvalContentChange(kit: CorpusKit): Promise<CorpusPdf> {
  const sealed = await ownApprovalPdf(kit);
  return corpusPdf(
    'approval-content-change',
    described(
      `own-approval + one update: a new content stream ("${REPLACED_TEXT}") and page 1 redefined with /Contents pointing at it alone. ` +
        'The incremental saving attack: the signature still verifies over its own revision.',
      SAID_APPROVAL_CHANGED,
    ),
    await updatePageContents(sealed, (_current, fresh) => [fresh!], textContent(REPLACED_TEXT, 54, 700, 11)),
    BROKEN_APPROVAL,
  );
}

export async function isaNewXrefOnly(kit: CorpusKit): Promise<CorpusPdf> {
  const sealed = await ownApprovalPdf(kit);
  const { doc, page } = await firstPage(sealed);
  const [content] = contentNumbers(page);
  const font = pageFont(doc, page);
  // Same object number, new body: the page dictionary itself is not touched.
  const body = streamBody('', textWith(font.name, REPLACED_TEXT, 54, 700, 11));
  return corpusPdf(
    'isa-new-xref-only',
    described(
      `own-approval + one update holding only a new body for page 1's content stream object ${content} (same number) and an xref ` +
        'section for it: no new object number, no dictionary changed.',
      SAID_APPROVAL_CHANGED,
    ),
    appendUpdate(sealed, new Map([[content, body]])),
    BROKEN_APPROVAL,
  );
}

/** The signature dictionary object the first signature field's /V names. */
export async function signatureDictionaryNumber(pdf: Uint8Array): Promise<number> {
  const doc = await loadAll(pdf);
  const fields = doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict).lookup(PDFName.of('Fields'), PDFArray);
  return (fields.lookup(0, PDFDict).get(PDFName.of('V')) as PDFRef).objectNumber;
}

export async function sigDictOutside(kit: CorpusKit): Promise<CorpusPdf> {
  const sealed = await ownApprovalPdf(kit);
  const number = await signatureDictionaryNumber(sealed);
  const original = findObject(sealed, number);
  // /ByteRange and /Contents copied byte for byte; the reason, outside any signed range, now says what the attacker wants.
  const copy = original.value.replace(/\/Reason \((?:[^()\\]|\\.)*\)/, '/Reason (Approved without reservation)');
  if (copy === original.value) throw new Error('the seal has no /Reason to change');
  return corpusPdf(
    'sig-dict-outside',
    described(
      `own-approval + one update redefining the signature dictionary (object ${number}): the same /ByteRange and /Contents bytes, ` +
        'a different /Reason. The dictionary a reader resolves lies outside the signed bytes, which hold the old one.',
      SAID_APPROVAL_CHANGED,
    ),
    appendUpdate(sealed, new Map([[number, copy]])),
    BROKEN_APPROVAL,
  );
}

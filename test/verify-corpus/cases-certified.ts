// Changes after a certification: forbidden ones under DocMDP P=1 (an overlay, a page, a field value,
// an annotation, a foreign re-signature over them), and the form filling P=2 and approvals permit.
import { PDF } from '@libpdf/core';
import { PDFArray, PDFDict, PDFName, PDFRef } from 'pdf-lib';
import { ownCertifiedPdf } from './cases-trust';
import {
  classic,
  FIELD_NAME,
  fillTextField,
  firstPage,
  formDocument,
  textContent,
  type1Font,
  updatePageContents,
  withEntries,
} from './documents';
import { appendUpdate, nextObjectNumber, streamBody } from './incremental';
import { libpdfSigner } from './keys';
import { type CorpusKit, type CorpusPdf, corpusPdf, described, expectation, SAID, SEAL_INFO } from './kit';
import { signDocument } from './signing';

/** What every forbidden change to own-certified breaks: the certification and the document timestamp before it. */
const BROKEN_CERTIFICATION = expectation(
  'invalid',
  ['certification', 'TOTAL-FAILED', 'FORMAT_FAILURE'],
  ['timestamp', 'TOTAL-FAILED', 'FORMAT_FAILURE'],
);

/** What the tools said of own-certified plus one forbidden update: nothing about the update. */
const SAID_CERTIFIED_CHANGED = {
  pdfsig: `2 signatures; #1 ${SAID.ownValid}, 'Not total document signed'; #2 ${SAID.timestampUnverified}, 'Not total document signed'.`,
  pdfcpu: `document timestamp 'validity of the signature is unknown' (signature data is malformed); certified signature ${SAID.revocationUnknown}.`,
};

/** A white box over the top of the NDA's text (its title and first clauses). */
const WHITE_BOX = 'q 1 1 1 rg 40 560 532 200 re f Q';

function certifiedOverlayPdf(kit: CorpusKit): Promise<Buffer> {
  return kit.once('certified-overlay', async () =>
    updatePageContents(await ownCertifiedPdf(kit), (current, fresh) => [...current, fresh!], WHITE_BOX),
  );
}

export async function certifiedOverlay(kit: CorpusKit): Promise<CorpusPdf> {
  return corpusPdf(
    'certified-overlay',
    described(
      'own-certified + one update: a new content stream painting a white box over the top of page 1, the page /Contents now [old, new].',
      SAID_CERTIFIED_CHANGED,
    ),
    await certifiedOverlayPdf(kit),
    BROKEN_CERTIFICATION,
  );
}

export async function certifiedOverlayResigned(kit: CorpusKit): Promise<CorpusPdf> {
  // The example: a foreign key signs over the tampered file, so its own signature covers everything.
  const signed = await (await PDF.load(await certifiedOverlayPdf(kit))).sign({
    signer: libpdfSigner(kit.keys.foreign),
    fieldName: 'Agents API seal',
    reason: 'Approved',
  });
  return corpusPdf(
    'certified-overlay-resigned',
    described(
      'certified-overlay, then signed whole (incrementally, libpdf sign() with a CryptoKeySigner) by the self-signed "CN=Agents API seal" key.',
      {
        pdfsig:
          `3 signatures; #1 ${SAID.ownValid}; #2 ${SAID.timestampUnverified}; #3 'Agents API seal' 'Signature is Valid.', ` +
          "'Certificate issuer is unknown.', 'Total document signed'.",
        pdfcpu:
          "lists 2 signatures (not the document timestamp): the foreign one 'validity of the signature is unknown' (signer's certificate path " +
          `was not resolved using the configured local certificate store), the certified one ${SAID.revocationUnknown}.`,
      },
    ),
    signed.bytes,
    expectation(
      'invalid',
      ['certification', 'TOTAL-FAILED', 'FORMAT_FAILURE'],
      ['timestamp', 'TOTAL-FAILED', 'FORMAT_FAILURE'],
      ['approval', 'INDETERMINATE', 'NO_CERTIFICATE_CHAIN_FOUND'],
    ),
  );
}

export async function certifiedNewPage(kit: CorpusKit): Promise<CorpusPdf> {
  const certified = await ownCertifiedPdf(kit);
  const { doc, page } = await firstPage(certified);
  const pagesRef = page.get(PDFName.of('Parent')) as PDFRef;
  const pages = doc.context.lookup(pagesRef, PDFDict);
  const kids = pages.lookup(PDFName.of('Kids'), PDFArray).asArray();
  const [content, font, added] = [0, 1, 2].map((n) => nextObjectNumber(certified) + n);
  const objects = new Map<number, string | Buffer>([
    [content, streamBody('', textContent('Addendum: the Receiving Party waives every obligation above.', 54, 700))],
    [font, type1Font('Helvetica')],
    [
      added,
      `<< /Type /Page /Parent ${pagesRef.toString()} /MediaBox [0 0 612 792] /Resources << /Font << /CorpusHelv ${font} 0 R >> >> /Contents ${content} 0 R >>`,
    ],
    [pagesRef.objectNumber, withEntries(doc, pages, { Kids: [...kids, PDFRef.of(added)], Count: kids.length + 1 })],
  ]);
  return corpusPdf(
    'certified-new-page',
    described(
      'own-certified + one update adding a second page (the page tree /Kids and /Count changed; a new page and its content stream).',
      SAID_CERTIFIED_CHANGED,
    ),
    appendUpdate(certified, objects),
    BROKEN_CERTIFICATION,
  );
}

export async function certifiedFieldValue(kit: CorpusKit): Promise<CorpusPdf> {
  const certified = (await kit.sealer.certify(await classic(await formDocument()), SEAL_INFO)).pdf;
  return corpusPdf(
    'certified-field-value',
    described(
      `The NDA with a text field "${FIELD_NAME}" (value "EUR 100", pdf-lib appearance) certified by certify() (P=1, DSS, document timestamp), ` +
        'then one update setting the field /V to "EUR 100000" and its widget /AP to a new appearance stream: form filling, which P=1 forbids.',
      SAID_CERTIFIED_CHANGED,
    ),
    await fillTextField(certified, FIELD_NAME, 'EUR 100000'),
    BROKEN_CERTIFICATION,
  );
}

export async function certifiedAnnotation(kit: CorpusKit): Promise<CorpusPdf> {
  const certified = await ownCertifiedPdf(kit);
  const { doc, number, page } = await firstPage(certified);
  const [appearance, annotation] = [0, 1].map((n) => nextObjectNumber(certified) + n);
  const annots = page.lookupMaybe(PDFName.of('Annots'), PDFArray)?.asArray() ?? [];
  const objects = new Map<number, string | Buffer>([
    [appearance, streamBody('/Type /XObject /Subtype /Form /BBox [0 0 200 40]', '1 0 0 RG 3 w 2 2 196 36 re S')],
    [
      annotation,
      `<< /Type /Annot /Subtype /Square /Rect [360 20 560 60] /C [1 0 0] /BS << /W 3 >> /F 4 /P ${number} 0 R /Contents (Cancelled) /AP << /N ${appearance} 0 R >> >>`,
    ],
    [number, withEntries(doc, page, { Annots: [...annots, PDFRef.of(annotation)] })],
  ]);
  return corpusPdf(
    'certified-annotation',
    described(
      "own-certified + one update adding a Square annotation (red box, /AP appearance) to page 1's /Annots: P=1 permits no annotation.",
      SAID_CERTIFIED_CHANGED,
    ),
    appendUpdate(certified, objects),
    BROKEN_CERTIFICATION,
  );
}

export async function certifiedP2FormFill(kit: CorpusKit): Promise<CorpusPdf> {
  const { keys } = kit;
  // The service certifies with P=1 only: a test-side certification with P=2 (form filling and signing permitted).
  const certified = await signDocument(await formDocument(), keys.seal, {
    docMdp: 2,
    tsa: keys.tsa,
    reason: 'Certified: form filling permitted',
  });
  const approved = await (await PDF.load(certified.pdf)).sign({
    signer: libpdfSigner(keys.seal),
    fieldName: 'Approval',
    reason: 'Approved',
    timestampAuthority: keys.tsa,
  });
  return corpusPdf(
    'certified-p2-form-fill',
    described(
      `The NDA with a text field "${FIELD_NAME}" certified by the dev seal with DocMDP P=2 (test-side signing: /Reference P 2, catalog /Perms, ` +
        'B-T with the dev TSA), then an approval signature by the dev seal added incrementally by libpdf (chain: the dev CA, dev TSA ' +
        'timestamp), then one update filling the field (/V "EUR 250" and a new widget /AP): all permitted by P=2.',
      {
        pdfsig: `2 signatures, both ${SAID.ownValid}, neither 'Total document signed'.`,
        pdfcpu:
          `approval ${SAID.revocationUnknown}; certified 'validity of the signature is unknown' (signature profile or algorithm is ` +
          "unsupported: 'Certified signature detected. Permission validation not supported.').",
      },
    ),
    await fillTextField(approved.bytes, FIELD_NAME, 'EUR 250'),
    expectation('valid', ['certification', 'TOTAL-PASSED'], ['approval', 'TOTAL-PASSED']),
  );
}

export async function approvalFormFill(kit: CorpusKit): Promise<CorpusPdf> {
  const sealed = await kit.sealer.seal(await classic(await formDocument()), SEAL_INFO);
  return corpusPdf(
    'approval-form-fill',
    described(
      `The NDA with a text field "${FIELD_NAME}" sealed by seal() (approval, no DocMDP), then one update filling the field ` +
        '(/V "EUR 250" and a new widget /AP): an approval signature without DocMDP permits what P=2 permits.',
      { pdfsig: `1 signature, ${SAID.ownValid}, 'Not total document signed'.`, pdfcpu: `${SAID.revocationUnknown}.` },
    ),
    await fillTextField(sealed, FIELD_NAME, 'EUR 250'),
    expectation('valid', ['approval', 'TOTAL-PASSED']),
  );
}

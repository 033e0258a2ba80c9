// Attacks on the signature's own structure: a gap wider than /Contents, a signature no field names,
// signature wrapping (Mladenov et al. 2019, SWA) and universal signature forgery (USF).
import { PDFHexString, PDFName, PDFString } from 'pdf-lib';
import { classic, contentNumbers, loadAll, ndaDocument, pageFont, textWith } from './documents';
import { lastStartxref, readRevisions, streamBody } from './incremental';
import { type CorpusKit, type CorpusPdf, corpusPdf, described, expectation, SAID } from './kit';
import { addSignatureField, addSignaturePlaceholder, BYTE_RANGE_PLACEHOLDER, signDocument, signPlaceholder } from './signing';

/** The reason the gap case signs, and what it says after the attack (same length: no offset moves). */
export const GAP_REASON = 'Amount approved: EUR 100';
export const GAP_REASON_ALTERED = 'Amount approved: EUR 900';

export async function gapLargerThanContents(kit: CorpusKit): Promise<CorpusPdf> {
  const { keys } = kit;
  const doc = await ndaDocument();
  addSignaturePlaceholder(doc, { reason: GAP_REASON });
  // The dictionary reads "/Contents <…>\n/Reason (…)": the gap runs on to the end of the reason string.
  const signed = await signPlaceholder(await classic(doc), keys.seal, {
    tsa: keys.tsa,
    gapEnd: (contentsEnd, text) => {
      const reason = text.indexOf(`/Reason (${GAP_REASON})`, contentsEnd);
      if (reason !== contentsEnd + 1) throw new Error('the reason does not follow /Contents');
      return reason + `/Reason (${GAP_REASON})`.length;
    },
  });
  const [, b, c] = signed.byteRange;
  const attacked = Buffer.from(signed.pdf);
  const at = attacked.indexOf(GAP_REASON, b, 'latin1');
  if (at < 0 || at >= c) throw new Error('the reason is not inside the gap');
  attacked.write(GAP_REASON_ALTERED, at, 'latin1');
  return corpusPdf(
    'gap-larger-than-contents',
    described(
      `Signed by the dev seal (test-side signing) with /ByteRange [0 ${b} ${c} …]: the gap is the /Contents hex string and also the ` +
        `"/Reason (${GAP_REASON})" entry after it, then changed to "${GAP_REASON_ALTERED}". The CMS still verifies over the ranges.`,
      {
        pdfsig: `1 signature, ${SAID.ownValid}, 'Not total document signed'.`,
        pdfcpu: "'validity of the signature is unknown' (signature data is malformed).",
      },
    ),
    attacked,
    expectation('invalid', ['approval', 'TOTAL-FAILED', 'FORMAT_FAILURE']),
  );
}

export async function notInAcroForm(kit: CorpusKit): Promise<CorpusPdf> {
  const { keys } = kit;
  // The widget and the signature dictionary are written, but neither /AcroForm /Fields nor the page's /Annots name them.
  const signed = await signDocument(await ndaDocument(), keys.seal, { tsa: keys.tsa, unreachable: true });
  return corpusPdf(
    'not-in-acroform',
    described(
      `A signature dictionary (object ${signed.sigRef.objectNumber}) with a valid CMS by the dev seal over a byte range that ends at the ` +
        'file end, and its widget, neither named by any AcroForm field or page /Annots (the document has no AcroForm): found only by scanning.',
      { pdfsig: "'File … does not contain any signatures'.", pdfcpu: "'validate signatures: no signatures present'." },
    ),
    signed.pdf,
    expectation('indeterminate', { kind: 'approval', indication: 'INDETERMINATE', subIndication: 'FORMAT_FAILURE', reachable: false }),
  );
}

/** The text the wrapped document shows in place of the NDA's. */
export const WRAPPED_TEXT = 'Signature wrapping: this page is not what was signed.';

/**
 * Signature wrapping. The signed file, with /Contents written BEFORE /ByteRange, is
 *
 *   [0, b)  A: header … "n 0 obj << … /Contents "        (signed)
 *   [b, c)  "<hex>"                                       (the gap)
 *   [c, e)  B: "/ByteRange [0 b c d] … >> endobj", the widget, the AcroForm, the xref at X, "startxref X %%EOF" (signed)
 *
 * The attack keeps A and the hex where they are and moves B, unchanged, to the end of the file:
 *
 *   [0, b)  A
 *   [b, c)  "<hex>"
 *   [c, c') unsigned: "/ByteRange [0 b c' d] … >> endobj" (the dictionary's new end), padding up to offset X,
 *           a new xref table at X (every object: A's where they were, B's shifted by c'-c, the page content
 *           stream at its new body), its trailer, then the new content stream body
 *   [c', e') B, byte for byte: its "startxref X" now names the new xref table
 *
 * [0,b)+[c',c'+d) are exactly the bytes signed, so the CMS verifies over the new /ByteRange, which ends at
 * the file end; the copy of the old dictionary end at the start of B is bytes no xref entry names.
 */
export async function signatureWrapping(kit: CorpusKit): Promise<CorpusPdf> {
  const { keys } = kit;
  const doc = await ndaDocument();
  const page = doc.getPage(0).node;
  const [content] = contentNumbers(page);
  const font = pageFont(doc, page).name;
  const { sigRef } = addSignaturePlaceholder(doc, { contentsFirst: true, reason: 'Approved' });
  const signed = await signPlaceholder(await classic(doc), keys.seal, { tsa: keys.tsa });
  const original = signed.pdf;
  const [, b, c, d] = signed.byteRange;
  const x = lastStartxref(original);
  const [revision] = readRevisions(original);
  const text = original.toString('latin1');
  // The dictionary's end after /Contents: from c through its "endobj", with the new byte range in it.
  const tailEnd = text.indexOf('endobj', c) + 'endobj'.length;
  const tail = text.slice(c, tailEnd);
  if (!tail.includes('/ByteRange [0 ')) throw new Error('the /ByteRange does not follow /Contents');
  const newContent = Buffer.concat([
    Buffer.from(`${content} 0 obj\n`),
    streamBody('', textWith(font, WRAPPED_TEXT, 54, 700, 11)),
    Buffer.from('\nendobj\n'),
  ]);
  const trailer = `trailer\n<< /Size ${revision.trailer.size} /Root ${revision.trailer.root}${revision.trailer.info ? ` /Info ${revision.trailer.info}` : ''} >>\n`;
  const tableLength = `xref\n0 ${revision.trailer.size}\n`.length + 20 * revision.trailer.size;
  const contentAt = x + tableLength + trailer.length;
  const regionLength = contentAt + newContent.length - c;
  const cPrime = c + regionLength;
  const byteRange = `/ByteRange [0 ${b} ${cPrime} ${d}]`.padEnd(BYTE_RANGE_PLACEHOLDER.length, ' ');
  const newTail = `${tail.replace(/\/ByteRange \[0 [^\]]*\]\s*/, `${byteRange}\n`)}\n`;
  if (c + newTail.length > x) throw new Error(`the xref table at ${x} leaves no room for the dictionary's end (${newTail.length} bytes)`);
  let table = `xref\n0 ${revision.trailer.size}\n`;
  for (let number = 0; number < revision.trailer.size; number += 1) {
    const entry = revision.entries.get(number);
    let offset = entry?.inUse ? entry.offset : 0;
    if (number === content) offset = contentAt;
    else if (entry?.inUse && offset >= c) offset += cPrime - c;
    const generation = entry?.inUse ? 0 : 65535;
    table += `${String(offset).padStart(10, '0')} ${String(generation).padStart(5, '0')} ${entry?.inUse ? 'n' : 'f'} \n`;
  }
  const region = Buffer.concat([Buffer.from(newTail.padEnd(x - c, ' '), 'latin1'), Buffer.from(table + trailer, 'latin1'), newContent]);
  if (region.length !== regionLength) throw new Error('the wrapped region is not the length its byte range says');
  const wrapped = Buffer.concat([original.subarray(0, c), region, original.subarray(c)]);
  return corpusPdf(
    'signature-wrapping',
    described(
      `Signature wrapping (SWA): signed by the dev seal with /Contents before /ByteRange (signature dictionary ${sigRef.objectNumber}); ` +
        `the second signed range moved to the end of the file (now [${cPrime}, ${cPrime + d})), and the freed space holds a new ` +
        `/ByteRange [0 ${b} ${cPrime} ${d}], a new xref table at the old startxref offset ${x} and page 1's content stream ` +
        `(object ${content}) showing "${WRAPPED_TEXT}". The signed bytes are unchanged and the ranges end at the file end.`,
      {
        pdfsig: `1 signature, ${SAID.ownValid}, 'Not total document signed'.`,
        pdfcpu: "'validity of the signature is unknown' (signature data is malformed).",
      },
    ),
    wrapped,
    expectation('invalid', ['approval', 'TOTAL-FAILED', 'FORMAT_FAILURE']),
  );
}

export async function usfNoContents(_kit: CorpusKit): Promise<CorpusPdf> {
  const doc = await ndaDocument();
  // A signature value that signs nothing: /ByteRange [0 0 0 0] and an empty /Contents.
  const sig = doc.context.register(
    doc.context.obj({
      Type: 'Sig',
      Filter: 'Adobe.PPKLite',
      SubFilter: 'ETSI.CAdES.detached',
      ByteRange: [0, 0, 0, 0],
      Contents: PDFHexString.of(''),
      Reason: PDFString.of('Approved'),
      M: PDFString.fromDate(new Date()),
      Name: PDFString.of('Document seal (development)'),
    }),
  );
  addSignatureField(doc, sig);
  const pdf = await classic(doc);
  // Checked with pdf-lib: the field's value really is the empty signature.
  if (!(await loadAll(pdf)).catalog.has(PDFName.of('AcroForm'))) throw new Error('the form was not written');
  return corpusPdf(
    'usf-no-contents',
    described(
      `Universal signature forgery: the document's only signature field ("Seal") has a value with /ByteRange [0 0 0 0] and /Contents <> ` +
        '(no CMS at all), /Name "Document seal (development)".',
      {
        pdfsig:
          "1 signature, 'Signed Ranges: [0 - 0], [0 - 0]', 'Signature Validation: Unknown Validation Failure.' ('Input couldn't be parsed as a CMS signature').",
        pdfcpu: "'validity of the signature is unknown' (signature data is malformed).",
      },
    ),
    pdf,
    expectation('invalid', ['approval', 'TOTAL-FAILED', 'FORMAT_FAILURE']),
  );
}

// Shadow attacks (Mainka, Mladenov, Rohlmann, NDSS 2021): the signer signs a document that already
// carries hidden content, and a small update after signing shows it: hide, replace, hide-and-replace.
import { PDFName, PDFRef, StandardFonts } from 'pdf-lib';
import { BROKEN_APPROVAL, SAID_APPROVAL_CHANGED } from './cases-incremental';
import { ownApprovalPdf } from './cases-trust';
import {
  addCorpusFont,
  classic,
  contentNumbers,
  firstPage,
  ndaDocument,
  pageFont,
  registerStream,
  textContent,
  updatePageContents,
} from './documents';
import { appendUpdate, findObject, insertIntoSingleRevision } from './incremental';
import { type CorpusKit, type CorpusPdf, corpusPdf, described, SEAL_INFO } from './kit';
import { addSignaturePlaceholder, signPlaceholder } from './signing';

/** What the signer sees (the overlay) and what the attacker reveals after signing (under it). */
export const SHOWN_TEXT = 'Fee: none.';
export const HIDDEN_TEXT = 'Fee: EUR 900,000, payable on signature.';

/**
 * The NDA whose page 1 draws the hidden text and then an overlay (a white box and the shown text) on
 * top of it, as separate content streams: answers the document and the overlay's object.
 */
async function documentWithOverlay() {
  const doc = await ndaDocument();
  await addCorpusFont(doc);
  const page = doc.getPage(0);
  const existing = contentNumbers(page.node).map((n) => PDFRef.of(n));
  const hidden = registerStream(doc, textContent(HIDDEN_TEXT, 54, 30, 12));
  const overlay = registerStream(doc, `q 1 1 1 rg 50 24 420 22 re f Q ${textContent(SHOWN_TEXT, 54, 30, 12)}`);
  page.node.set(PDFName.of('Contents'), doc.context.obj([...existing, hidden, overlay]));
  return { doc, overlay };
}

export async function shadowHide(kit: CorpusKit): Promise<CorpusPdf> {
  const { doc, overlay } = await documentWithOverlay();
  const sealed = await kit.sealer.seal(await classic(doc), SEAL_INFO);
  const attacked = await updatePageContents(sealed, (current) => current.filter((n) => n !== overlay.objectNumber));
  return corpusPdf(
    'shadow-hide',
    described(
      `The signed (seal(), dev seal) page 1 draws "${HIDDEN_TEXT}" and then an overlay stream (object ${overlay.objectNumber}: a white box ` +
        `and "${SHOWN_TEXT}") over it; one update after signing redefines page 1 with the overlay left out of /Contents.`,
      SAID_APPROVAL_CHANGED,
    ),
    attacked,
    BROKEN_APPROVAL,
  );
}

export async function shadowHideXref(kit: CorpusKit): Promise<CorpusPdf> {
  const { keys } = kit;
  const { doc, overlay } = await documentWithOverlay();
  addSignaturePlaceholder(doc, { reason: SEAL_INFO.reason });
  const prepared = await classic(doc);
  // A second, empty body of the overlay's number, planted just before the real one: no xref entry names it.
  const real = findObject(prepared, overlay.objectNumber);
  const decoy = Buffer.from(`${overlay.objectNumber} 0 obj\n<< /Length 0 >>\nstream\n\nendstream\nendobj\n`, 'latin1');
  const planted = insertIntoSingleRevision(prepared, real.offset, decoy);
  const signed = await signPlaceholder(planted, keys.seal, { tsa: keys.tsa });
  // The update is an xref section alone: the overlay's number now points at the empty body.
  const attacked = appendUpdate(signed.pdf, new Map(), { pointAt: new Map([[overlay.objectNumber, real.offset]]) });
  return corpusPdf(
    'shadow-hide-xref',
    described(
      `The signed revision (dev seal, test-side signing) holds two bodies of the overlay object ${overlay.objectNumber}: an empty stream ` +
        `at offset ${real.offset}, which its xref does not name, then the white box with "${SHOWN_TEXT}" over "${HIDDEN_TEXT}". ` +
        'The update is only an xref section (no object body) pointing that number at the empty body.',
      SAID_APPROVAL_CHANGED,
    ),
    attacked,
    BROKEN_APPROVAL,
  );
}

export async function shadowReplace(kit: CorpusKit): Promise<CorpusPdf> {
  const sealed = await ownApprovalPdf(kit);
  const { doc, page } = await firstPage(sealed);
  const font = pageFont(doc, page);
  // The same font, with an encoding that draws the codes of "2" and "3" as "9": "two (2) years" reads "two (9) years".
  const replaced =
    '<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [50 /nine /nine] >> >>';
  return corpusPdf(
    'shadow-replace',
    described(
      `own-approval + one update overwriting the body text's font (object ${font.ref.objectNumber}, Times-Roman) with one whose ` +
        '/Differences draw the digits 2 and 3 as 9: the signed content bytes are unchanged, the page reads "two (9) years".',
      SAID_APPROVAL_CHANGED,
    ),
    appendUpdate(sealed, new Map([[font.ref.objectNumber, replaced]])),
    BROKEN_APPROVAL,
  );
}

/** The text of the hidden document's one page. */
export const HIDDEN_DOCUMENT_TEXT = 'MUTUAL NDA (amended): either Party may disclose any information.';

export async function shadowHideAndReplace(kit: CorpusKit): Promise<CorpusPdf> {
  const { keys } = kit;
  const doc = await ndaDocument();
  const helvetica = await doc.embedFont(StandardFonts.Helvetica);
  // A complete second document nothing references: catalog, page tree, page, content.
  const content = registerStream(doc, textContent(HIDDEN_DOCUMENT_TEXT, 54, 720, 12));
  const hiddenPage = doc.context.obj({
    Type: 'Page',
    MediaBox: [0, 0, 612, 792],
    Resources: { Font: { CorpusHelv: helvetica.ref } },
    Contents: content,
  });
  const hiddenPageRef = doc.context.register(hiddenPage);
  const hiddenPages = doc.context.register(doc.context.obj({ Type: 'Pages', Kids: [hiddenPageRef], Count: 1 }));
  hiddenPage.set(PDFName.of('Parent'), hiddenPages);
  const hiddenCatalog = doc.context.obj({ Type: 'Catalog', Pages: hiddenPages });
  const hiddenCatalogRef = doc.context.register(hiddenCatalog);
  const { widgetRef } = addSignaturePlaceholder(doc, { reason: SEAL_INFO.reason });
  // It shares the AcroForm, so the signature field stays reachable once it is the document shown.
  hiddenCatalog.set(PDFName.of('AcroForm'), doc.catalog.get(PDFName.of('AcroForm'))!);
  hiddenPage.set(PDFName.of('Annots'), doc.context.obj([widgetRef]));
  const signed = await signPlaceholder(await classic(doc), keys.seal, { tsa: keys.tsa });
  return corpusPdf(
    'shadow-hide-and-replace',
    described(
      'The signed revision (dev seal, test-side signing) also holds a complete unreferenced document (catalog ' +
        `${hiddenCatalogRef.objectNumber}, page tree, page: "${HIDDEN_DOCUMENT_TEXT}") sharing the AcroForm; the update is only an xref ` +
        'section and a trailer whose /Root is that catalog.',
      SAID_APPROVAL_CHANGED,
    ),
    appendUpdate(signed.pdf, new Map(), { root: hiddenCatalogRef.objectNumber }),
    BROKEN_APPROVAL,
  );
}

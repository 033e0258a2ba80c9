// pdf.js for every viewer of the app (the sign page, the template editor, the L1 confirmation's
// preview): the module loaded once with its worker named, and every PDF opened with the same options.

/** @type {typeof import('/static/pdfjs/pdf.min.mjs') | undefined} */
let pdfjsModule;

async function loadPdfjs() {
  if (!pdfjsModule) {
    pdfjsModule = await import('/static/pdfjs/pdf.min.mjs');
    pdfjsModule.GlobalWorkerOptions.workerSrc = '/static/pdfjs/pdf.worker.min.mjs';
  }
  return pdfjsModule;
}

/**
 * Opens a PDF's bytes with pdf.js and answers its document (`numPages`, `getPage(n)`, `destroy()`).
 * No eval under the pages' CSP (pdf.js then interprets fonts instead of compiling them); the standard
 * fonts, the wasm decoders and the character maps come from /static/pdfjs/.
 */
/** @param {Uint8Array} data */
export async function openPdf(data) {
  const pdfjs = await loadPdfjs();
  return pdfjs.getDocument({
    data,
    isEvalSupported: false,
    standardFontDataUrl: '/static/pdfjs/standard_fonts/',
    wasmUrl: '/static/pdfjs/wasm/',
    cMapUrl: '/static/pdfjs/cmaps/',
    cMapPacked: true,
  }).promise;
}

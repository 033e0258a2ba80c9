export { DEFAULT_INTAKE_LIMITS, type IntakeLimits } from './limits';
export { type NormalisedPdf, normalisePdf } from './normalise';
export { createPdfThreads, type PdfThreads } from './pool';
export type { Removed } from './strip';

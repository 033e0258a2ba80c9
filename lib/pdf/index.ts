export { appendCertificatePage, type CertificateInput, type CertificateSigner } from './certificate';
export { PdfError } from './errors';
export { checkImage, type ImageCheck, type ImageKind, readableImageKind } from './image';
export { buildSampleNda, buildSampleServicesAgreement, type SampleTemplate } from './samples';
export { createSealer, loadSealCertificate, type SealCertificate, type Sealer } from './seal';
export { type StampInput, stampWidgets } from './stamp';
export { AUTO_FILLED, unfilledWidgets, WIDGET_TYPES, type Widget, type WidgetType } from './widgets';

export { appendCertificatePage, type CertificateInput, type CertificateSigner } from './certificate';
export { PdfError } from './errors';
export { checkImage, readableImageKind, type ImageCheck, type ImageKind } from './image';
export { buildSampleNda, buildSampleServicesAgreement, type SampleTemplate } from './samples';
export { createSealer, loadSealCertificate, type SealCertificate, type Sealer } from './seal';
export { stampWidgets, type StampInput } from './stamp';
export { AUTO_FILLED, unfilledWidgets, WIDGET_TYPES, type Widget, type WidgetType } from './widgets';

export { ApiKey } from './api-key';
export { type ActorType, AuditEvent, MailMessage, OneTimeCode } from './audit';
export { Contact, type ContactDirection, type ContactStatus } from './contact';
export {
  Apply,
  type ApplyInput,
  type ApplyKind,
  type ApplyStatus,
  Document,
  DocumentRevision,
  DocumentSigner,
  type DocumentStatus,
  type SignerStatus,
} from './document';
export { Event } from './event';
export {
  AppSession,
  type ConfirmationLevel,
  Mandate,
  type MandateMode,
  type MandateState,
  type MandateStatus,
  type RevokedVia,
  SignRequest,
  type SignRequestStatus,
} from './mandate';
export { Offer, type OfferStatus, ReceiptKey } from './offer';
export { Principal } from './principal';
export { Template } from './template';
export { PLANS, type Plan, Tenant } from './tenant';
export { DriveFile, Transfer, TransferFile, type TransferMode, TransferRecipient, type TransferStatus } from './transfer';
export { Delivery, DeliveryAttempt, type DeliveryStatus, Webhook } from './webhook';

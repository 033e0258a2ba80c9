export { ApiKey } from './api-key';
export { AppSession } from './app-session';
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
export { DriveFile } from './drive-file';
export { Event } from './event';
export {
  type ConfirmationLevel,
  Mandate,
  type MandateMode,
  type MandateState,
  type MandateStatus,
  type RevokedVia,
} from './mandate';
export { Offer, type OfferStatus } from './offer';
export { Principal } from './principal';
export { ReceiptKey } from './receipt-key';
export { SignRequest, type SignRequestStatus } from './sign-request';
export { Template } from './template';
export { PLANS, type Plan, Tenant } from './tenant';
export { Transfer, TransferFile, type TransferMode, TransferRecipient, type TransferStatus } from './transfer';
export { Delivery, DeliveryAttempt, type DeliveryStatus, Webhook } from './webhook';

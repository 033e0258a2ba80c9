export { ApiKey } from './api-key';
export { AppSession } from './app-session';
export { type ActorType, AuditEvent, MailMessage, OneTimeCode } from './audit';
export {
  BULK_ITEM_STATUSES,
  BULK_STATUSES,
  type BulkItemInput,
  type BulkItemStatus,
  BulkSend,
  BulkSendItem,
  type BulkStatus,
} from './bulk-send';
export { CONTACT_STATUSES, Contact, type ContactDirection, type ContactStatus } from './contact';
export {
  APPLY_STATUSES,
  Apply,
  type ApplyInput,
  type ApplyKind,
  type ApplyStatus,
  DOCUMENT_STATUSES,
  Document,
  type DocumentReminders,
  DocumentRevision,
  DocumentSigner,
  type DocumentStatus,
  SIGNER_STATUSES,
  type SignerStatus,
} from './document';
export { DriveFile } from './drive-file';
export { Event } from './event';
export {
  type ConfirmationLevel,
  Mandate,
  type MandateMode,
  type MandatePolicy,
  type MandateState,
  type MandateStatus,
  type RevokedVia,
  StatusList,
} from './mandate';
export { OFFER_FINAL, OFFER_OPEN, OFFER_STATUSES, Offer, type OfferStatus } from './offer';
export { Principal } from './principal';
export { ReceiptKey } from './receipt-key';
export { PUBLIC_SIGN_REQUEST_STATUSES, SIGN_REQUEST_STATUSES, SignRequest, type SignRequestStatus } from './sign-request';
export { Template } from './template';
export { PLANS, type Plan, Tenant } from './tenant';
export { TRANSFER_STATUSES, Transfer, TransferFile, type TransferMode, TransferRecipient, type TransferStatus } from './transfer';
export { DELIVERY_STATUSES, Delivery, DeliveryAttempt, type DeliveryStatus, Webhook } from './webhook';
export { WorkflowStartRow } from './workflow-start';

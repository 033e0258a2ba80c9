export { ApiKey } from './api-key';
export { type ActorType, AuditEvent, MailMessage, OneTimeCode } from './audit';
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
  type MandateStatus,
  SignRequest,
  type SignRequestStatus,
} from './mandate';
export { Principal } from './principal';
export { Template } from './template';
export { PLANS, type Plan, Tenant } from './tenant';
export { Delivery, DeliveryAttempt, type DeliveryStatus, Webhook } from './webhook';

export { ApiKey } from './api-key';
export { AuditEvent, MailMessage, OneTimeCode, type ActorType } from './audit';
export {
  Apply,
  Document,
  DocumentRevision,
  DocumentSigner,
  type ApplyInput,
  type ApplyKind,
  type ApplyStatus,
  type DocumentStatus,
  type SignerStatus,
} from './document';
export { Event } from './event';
export { Principal } from './principal';
export { Template } from './template';
export { PLANS, Tenant, type Plan } from './tenant';
export {
  AppSession,
  Mandate,
  SignRequest,
  type ConfirmationLevel,
  type MandateMode,
  type MandateStatus,
  type SignRequestStatus,
} from './mandate';
export { Delivery, DeliveryAttempt, Webhook, type DeliveryStatus } from './webhook';

import { z } from 'zod';
import { CONTACT_STATUSES } from '../../db/models';
import { id, instant, sha256, unionByName } from '../events/payloads';

/**
 * What every audit line carries, one strict zod schema per action, declared once: `recordAudit`
 * checks the data against it in the transaction of the change (a line that does not match is a bug,
 * never written), the OpenAPI document publishes it (`AuditLine`), and the completion's attached
 * audit trail is made of these lines, so a court reading the trail years later reads these shapes
 * (all but its last, `document.completed` written before the seal: it carries `signed_sha256` only,
 * as the final hash and revision do not exist yet).
 * Strict: a field nobody declared (a token, a secret) cannot slip into the record.
 */

const ids = {
  apply: id('apl_'),
  document: id('doc_'),
  signer: id('sgn_'),
  signRequest: id('sr_'),
  mandate: id('mdt_'),
  key: id('key_'),
  offer: id('ofr_'),
  contact: id('ct_'),
  transfer: id('xfr_'),
  recipient: id('rcp_'),
  driveFile: id('drv_'),
  template: id('tpl_'),
};
const line = <Shape extends z.ZodRawShape>(shape: Shape) => z.strictObject(shape);
const offerLine = <Shape extends z.ZodRawShape>(shape: Shape) => line({ offer_id: ids.offer, ...shape });
const transferLine = <Shape extends z.ZodRawShape>(shape: Shape) => line({ transfer_id: ids.transfer, ...shape });
const signerList = z.array(z.strictObject({ id: ids.signer, email: z.string(), role: z.string() }));
const level = z.enum(['L1', 'L2']);
/** A mandate's policy as granted (db/models/mandate.ts MandatePolicy). */
const policy = z.strictObject({
  counterparties: z.array(z.string()).optional(),
  templates: z.array(z.string()).optional(),
  document_hashes: z.array(sha256).optional(),
  daily_cap: z.number().int().optional(),
  per_counterparty: z.strictObject({ max: z.number().int(), period: z.enum(['day', 'week', 'month']) }).optional(),
  hours: z.strictObject({ from: z.string(), to: z.string(), time_zone: z.string() }).optional(),
});
const mandateTerms = {
  mandate_id: ids.mandate,
  api_key_id: ids.key,
  level,
  mode: z.enum(['outbound', 'inbound', 'both']),
  expires_at: instant.nullable(),
  /** The mandate's policy as granted (activities/mandates/policy.ts), when it has one. */
  policy: policy.optional(),
  consent_version: z.string(),
};
const via = z.enum(['app', 'stop-link', 'key', 'operator']).describe('where it was revoked');

export const AUDIT_DATA = {
  'appearance.stored': line({ sha256, kind: z.string(), bytes: z.number().int().nonnegative() }),
  'code.locked': line({ purpose: z.string(), subject: z.string(), client: z.string() }),
  'contact.accepted': line({ contact_id: ids.contact, pair_id: z.uuid() }),
  'contact.invited': line({ contact_id: ids.contact, pair_id: z.uuid(), counterparty_email: z.string() }),
  'contact.revoked': line({ contact_id: ids.contact, pair_id: z.uuid(), was: z.enum(CONTACT_STATUSES) }),
  'document.completed': line({ signed_sha256: sha256, final_sha256: sha256, revision: z.number().int().nonnegative() }),
  'document.created': line({
    template_id: ids.template.nullish(),
    drive_file_id: ids.driveFile.nullish(),
    name: z.string(),
    sha256,
    signers: signerList,
    /** The fields the sender's locked values filled (stamped into revision 0). */
    prefilled: z.array(z.string()).optional(),
  }),
  'document.declined': line({ signer_id: ids.signer, reason: z.string().nullable() }),
  'document.expired': line({
    expires_at: instant,
    sign_requests: z.array(ids.signRequest).describe('open L1 requests that expired with it'),
    offers: z.array(ids.offer).describe('open offers that expired with it'),
  }),
  'document.reminded': line({
    signer_id: ids.signer,
    email: z.string(),
    trigger: z.enum(['schedule', 'remind']),
    round: z.number().int().positive().nullable(),
  }),
  'document.sent': line({ strict_order: z.boolean() }),
  'document.signed': line({
    apply_id: ids.apply,
    signer_id: ids.signer,
    name: z.string().describe('the identity stamped'),
    email: z.string(),
    method: z.string(),
    mandate_id: ids.mandate.nullable(),
    pre_sign_hash: sha256,
    document_hash: sha256,
    revision: z.number().int().nonnegative(),
    consent_text: z.string().optional(),
  }),
  'document.signers_added': line({ signers: signerList }),
  'document.viewed': line({ signer_id: ids.signer, sha256 }),
  'document.voided': line({
    reason: z.string(),
    sign_requests: z.array(ids.signRequest).describe('open L1 requests ended with it'),
    offers: z.array(ids.offer).describe('open offers ended with it'),
    transfers: z.array(ids.transfer).describe('sign-to-unlock packages cancelled with it'),
  }),
  'drive.deleted': line({ drive_file_id: ids.driveFile }),
  'drive.uploaded': line({
    drive_file_id: ids.driveFile,
    name: z.string(),
    kind: z.string(),
    size: z.number().int().nonnegative(),
    sha256,
  }),
  'key.created': line({ api_key_id: ids.key, label: z.string() }),
  'key.revoked': line({ api_key_id: ids.key, label: z.string(), mandates_revoked: z.array(ids.mandate), via }),
  'login.code_sent': line({}),
  'login.succeeded': line({
    session_id: id('ses_'),
    via: z.enum(['code', 'link']).optional().describe("the e-mailed code, or the one-use link of the code's mail"),
  }),
  'mail.failed': line({
    mail_id: id('msg_'),
    purpose: z.string(),
    to: z.string(),
    signer_id: ids.signer.nullable(),
    error: z.string().nullable(),
  }),
  'mail.sent': line({
    mail_id: id('msg_'),
    purpose: z.string(),
    to: z.string(),
    signer_id: ids.signer.nullable(),
    delivery: z.enum(['smtp', 'outbox']).describe('handed to the SMTP relay, or kept in the embedded outbox (no SMTP configured)'),
  }),
  'mandate.consent_accepted': line(mandateTerms),
  'mandate.granted': line({
    ...mandateTerms,
    consent_accepted_at: instant,
    credential_id: z.string().nullable().optional().describe('the jti of the mandate credential issued at the grant'),
    confirmed_with: z
      .enum(['code', 'link'])
      .optional()
      .describe(
        "how the principal confirmed the grant: the e-mailed one-time code, or the one-use confirmation link of the code's mail, opened in the session that asked",
      ),
  }),
  'mandate.revoked': line({
    mandate_id: ids.mandate,
    api_key_id: ids.key,
    level,
    consent_version: z.string(),
    scope_removed: z.boolean().describe('no other mandate of the key is in force, so documents:sign left it'),
    via,
  }),
  'offer.accepted': offerLine({
    mandate_id: ids.mandate.nullable(),
    confirmation_level: z.enum(['l1', 'l2']).nullable(),
    document_hash: sha256.nullable(),
    final_sha256: sha256.nullable(),
    receipt_jws: z.string().nullable(),
  }),
  'offer.acknowledged': offerLine({}),
  'offer.created': offerLine({ to_email: z.string(), pre_sign_hash: sha256 }),
  'offer.declined': offerLine({ reason: z.string().nullish() }),
  'offer.escalated': offerLine({ sign_request_id: ids.signRequest }),
  'offer.expired': offerLine({}),
  'sign.code_sent': line({ signer_id: ids.signer }),
  'sign.email_verified': line({ signer_id: ids.signer, email: z.string() }),
  'sign_request.applied': line({ sign_request_id: ids.signRequest, apply_id: ids.apply.nullable() }),
  'sign_request.confirmed': line({
    sign_request_id: ids.signRequest,
    mandate_id: ids.mandate,
    offer_id: ids.offer.optional(),
    version: z.string().optional().describe('the version of the request the principal reviewed'),
  }),
  'sign_request.created': line({
    sign_request_id: ids.signRequest,
    document_id: ids.document,
    mandate_id: ids.mandate,
    reason: z.string().nullable(),
    offer_id: ids.offer.optional(),
  }),
  'sign_request.declined': line({ sign_request_id: ids.signRequest, offer_id: ids.offer.optional() }),
  'sign_request.expired': line({
    sign_request_id: ids.signRequest,
    document_id: ids.document.optional(),
    offer_id: ids.offer.optional(),
  }),
  'signature.rejected': line({ apply_id: ids.apply, signer_id: ids.signer, code: z.string(), message: z.string() }),
  'signature.submitted': line({
    apply_id: ids.apply,
    signer_id: ids.signer,
    kind: z.enum(['browser', 'mandate']),
    appearance: z.enum(['drawn', 'typed', 'uploaded', 'stored']),
    /** Editable prefilled values the signer changed: the field, the sender's value and the signer's. */
    prefill_changed: z
      .array(z.strictObject({ field: z.string(), from: z.union([z.string(), z.boolean()]), to: z.union([z.string(), z.boolean()]) }))
      .optional(),
  }),
  'template.created': line({
    template_id: ids.template,
    name: z.string(),
    pdf_sha256: sha256,
    roles: z.array(z.string()),
    widgets: z.number().int().nonnegative(),
    removed: z.array(z.string()).describe('what the intake stripped from the PDF, by kind'),
  }),
  'template.deleted': line({ template_id: ids.template, name: z.string() }),
  'template.updated': line({
    template_id: ids.template,
    name: z.string(),
    roles: z.array(z.string()),
    widgets: z.number().int().nonnegative(),
  }),
  'transfer.accepted': transferLine({ recipient_id: ids.recipient }),
  'transfer.bound': transferLine({ recipient_id: ids.recipient, principal_id: id('prn_') }),
  'transfer.cancelled': transferLine({}),
  'transfer.created': transferLine({
    mode: z.enum(['share', 'sign', 'accept']),
    files: z.array(ids.driveFile),
    recipients: z.array(z.string()),
  }),
  'transfer.downloads_minted': transferLine({ recipient_id: ids.recipient.nullable() }),
  'transfer.offered': transferLine({}),
  'transfer.released': transferLine({ mode: z.enum(['share', 'sign', 'accept']) }),
} as const;

export type AuditAction = keyof typeof AUDIT_DATA;
/** Every action the audit trail records, the only ones it takes. */
export const AUDIT_ACTIONS = Object.keys(AUDIT_DATA) as AuditAction[];
/** The data of one audit line, as it is written. */
export type AuditData<A extends AuditAction> = z.input<(typeof AUDIT_DATA)[A]>;

/** One audit line as the trail shows it (`{at, action, actor, data}`), by action. */
export const AuditLineSchema = unionByName('action', AUDIT_ACTIONS, (action) => ({
  at: instant,
  actor: z.object({
    type: z.enum(['signer', 'principal', 'agent', 'operator', 'system', 'recipient']),
    id: z.string().nullable(),
    ip: z.string().nullable(),
    user_agent: z.string().nullable(),
  }),
  data: AUDIT_DATA[action as AuditAction],
}));

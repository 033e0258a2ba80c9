import { z } from 'zod';
import { OFFER_STATUSES } from '../../db/models';

/**
 * What every event carries, one zod schema per event (SPEC: Events, plus document.declined,
 * document.sign_failed, document.reminded, document.expired, document.voided, offer.expired and mandate.revoked), declared once: `emitEvent` validates the
 * data against it when the event is written, the OpenAPI document publishes it in its `webhooks`
 * section (so receivers can generate types), and the SDK exports the types generated from that.
 */

/** An id with its prefix (`doc_…`), as the events and the audit trail carry it. */
export const id = (prefix: string) => z.string().regex(new RegExp(`^${prefix}`), `an id starting ${prefix}`);
export const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 in hex');
export const instant = z.iso.datetime({ offset: true });
const level = z.enum(['l1', 'l2']);
/**
 * A link that carries a token (accept_url, confirm_url): kept sealed in the outbox, opened into the body
 * at delivery; null when the key it was sealed under is no longer configured.
 */
const tokenLink = z.string().nullable().describe('a link carrying a one-time token; null once the key that sealed it was retired');
const person = z.object({ email: z.string(), name: z.string() });
const agent = z
  .object({ api_key_id: id('key_'), label: z.string() })
  .nullable()
  .describe('the key that acted; null for a person');

const contact = z.object({
  contact_id: id('ct_').describe('the receiving side’s contact'),
  pair_id: z.uuid(),
  counterparty_email: z.string(),
});

const offer = z.object({
  offer_id: id('ofr_'),
  contact_id: id('ct_').describe('the receiving side’s contact'),
  document_id: id('doc_'),
  document_name: z.string(),
  from_email: z.string(),
  to_email: z.string(),
  terms: z.string(),
  pre_sign_hash: sha256,
  human_signature_required: z.boolean(),
  expires_at: instant,
  status: z.enum(OFFER_STATUSES),
});

export const EVENT_DATA = {
  'contact.invited': contact.extend({ accept_url: tokenLink }),
  'contact.accepted': contact,
  'contact.revoked': contact.extend({ revoked_by: z.enum(['self', 'counterparty']).describe('as the receiving side sees it') }),
  'offer.received': offer,
  'offer.sent': offer,
  'offer.acked': offer,
  'offer.declined': offer.extend({ reason: z.string().nullable().optional() }),
  'offer.escalated': offer.extend({ sign_request_id: id('sr_'), confirm_url: tokenLink }),
  'offer.accepted': offer.extend({
    mandate_id: id('mdt_').nullable(),
    confirmation_level: level.nullable(),
    document_hash: sha256.nullable(),
    final_sha256: sha256.nullable(),
    receipt_jws: z.string().nullable(),
  }),
  'offer.expired': offer,
  'document.signed': z.object({
    document_id: id('doc_'),
    signer_id: id('sgn_'),
    principal: person.describe('who signed'),
    agent,
    mandate_id: id('mdt_').nullable(),
    mandate_credential: z
      .string()
      .nullable()
      .describe(
        'the credential of the mandate it was signed under: an SD-JWT VC (typ dc+sd-jwt) whose JWT is verifiable against /.well-known/jwks.json, its revocation in the status list it names (docs/receipts.md); null in the browser and for a mandate granted before credentials',
      ),
    confirmation_level: level.nullable(),
    pre_sign_hash: sha256,
    document_hash: sha256,
  }),
  'document.completed': z.object({
    document_id: id('doc_'),
    name: z.string(),
    completed_at: instant,
    original_sha256: sha256,
    signed_sha256: sha256,
    final_sha256: sha256,
    signers: z.array(
      z.object({
        name: z.string(),
        email: z.string(),
        signed_at: instant,
        method: z.string().nullable(),
        mandate_id: id('mdt_').nullable(),
        confirmation_level: level.nullable(),
        pre_sign_hash: sha256.nullable(),
        document_hash: sha256.nullable(),
      }),
    ),
    receipt_jws: z.string().describe('the dual-attestation receipt (docs/receipts.md)'),
  }),
  'document.declined': z.object({
    document_id: id('doc_'),
    signer_id: id('sgn_'),
    signer: person,
    reason: z.string().nullable(),
  }),
  'document.reminded': z.object({
    document_id: id('doc_'),
    signer_id: id('sgn_'),
    signer: person,
    trigger: z.enum(['schedule', 'remind']).describe('the document’s reminder schedule, or POST /documents/:id/remind'),
    round: z.number().int().positive().nullable().describe('the scheduled round (1 … max); null for a remind'),
    reminded_at: instant,
  }),
  'document.expired': z.object({
    document_id: id('doc_'),
    name: z.string(),
    expires_at: instant,
    expired_at: instant,
  }),
  'document.voided': z.object({
    document_id: id('doc_'),
    name: z.string(),
    reason: z.string(),
    voided_at: instant,
    voided_by: z
      .object({ type: z.enum(['agent', 'principal']), id: z.string() })
      .describe('the API key (agent) or the principal (in the app) that voided it'),
  }),
  'document.sign_failed': z.object({
    document_id: id('doc_'),
    signer_id: id('sgn_'),
    apply_id: id('apl_'),
    signer: person,
    agent,
    mandate_id: id('mdt_').nullable(),
    confirmation_level: level.nullable(),
    code: z.string().describe('the error code of the rejection'),
    message: z.string(),
    rejected_at: instant,
  }),
  'transfer.released': z.object({
    transfer_id: id('xfr_'),
    name: z.string(),
    mode: z.enum(['share', 'sign', 'accept']),
    document_id: id('doc_').nullable(),
    released_at: instant,
  }),
  'mandate.revoked': z.object({
    mandate_id: id('mdt_'),
    api_key_id: id('key_'),
    confirmation_level: z.enum(['L1', 'L2']),
    revoked_at: instant,
    via: z.string().describe('where it was revoked: the app, the stop link, a key revoke …'),
  }),
} as const;

export type EventName = keyof typeof EVENT_DATA;
/** The event names, in the order above. */
export const EVENT_NAMES = Object.keys(EVENT_DATA) as EventName[];
/** The data of one event, as it is written (token links sealed). */
export type EventData<E extends EventName> = z.input<(typeof EVENT_DATA)[E]>;

/**
 * A union of `{…, [key]: name, data}` objects, one per name, each with that name's data schema: the
 * event a receiver gets, the audit line a trail shows.
 */
export function unionByName(key: string, names: string[], entry: (name: string) => z.ZodRawShape) {
  return z.discriminatedUnion(
    key,
    names.map((name) => z.object({ [key]: z.literal(name), ...entry(name) })) as unknown as [z.ZodObject, ...z.ZodObject[]],
  );
}

/** One event as a webhook or an inbox receives it: `{id, event, created_at, data}`, by event name. */
export const EventSchema = unionByName('event', EVENT_NAMES, (name) => ({
  id: id('evt_'),
  created_at: instant,
  data: EVENT_DATA[name as EventName],
}));

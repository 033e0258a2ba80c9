import { z } from 'zod';
import { MandatePolicySchema } from '../mandates/schema';

const IndicationSchema = z.enum(['TOTAL-PASSED', 'TOTAL-FAILED', 'INDETERMINATE']).meta({
  description:
    'ETSI EN 319 102-1: `TOTAL-PASSED` (it holds), `TOTAL-FAILED` (it does not: the file changed, the signature is broken, the certificate was revoked), `INDETERMINATE` (it could not be established, e.g. no chain to a trust anchor)',
});
const SubIndicationSchema = z.string().nullable().meta({
  description:
    'ETSI EN 319 102-1 sub-indication when not passed: FORMAT_FAILURE, HASH_FAILURE, SIG_CRYPTO_FAILURE, REVOKED, NOT_YET_VALID, NO_CERTIFICATE_CHAIN_FOUND, NO_SIGNING_CERTIFICATE_FOUND, CHAIN_CONSTRAINTS_FAILURE, OUT_OF_BOUNDS_NO_POE',
});

const TimestampSchema = z
  .object({
    time: z.iso.datetime(),
    tsa: z.string().meta({ description: 'The timestamp authority’s certificate subject' }),
    indication: IndicationSchema,
    sub_indication: SubIndicationSchema,
    problem: z.string().nullable(),
    valid: z.boolean().meta({ description: 'Its indication is TOTAL-PASSED: the time is trusted' }),
  })
  .nullable()
  .meta({ description: 'The RFC 3161 token: the signature’s own timestamp, or the document timestamp itself' });

const ChainSchema = z
  .object({
    status: z.enum(['trusted', 'untrusted', 'failed']).meta({
      description: '`trusted`: a path to a trust anchor that holds; `untrusted`: no path to an anchor; `failed`: a path that does not hold',
    }),
    anchor: z.string().nullable().meta({ description: 'The trust anchor the path ends at' }),
    certificates: z.array(z.string()).meta({ description: 'Subjects from the signer’s certificate to the anchor' }),
    revocation: z.enum(['good', 'revoked', 'unknown', 'not_published']).meta({
      description:
        'From the OCSP responses and CRLs the file carries (none is fetched): `unknown` when the certificate publishes revocation data but the file holds none for it',
    }),
    revoked_at: z.iso.datetime().nullable(),
  })
  .nullable();

const ChangeSchema = z.object({
  revision: z.number().int().meta({ description: 'The revision (1-based) that made it' }),
  level: z.enum(['lta', 'signing', 'form_fill', 'annotation', 'other']).meta({
    description:
      '`lta` validation data or a document timestamp; `signing` a new signature; `form_fill` a form field’s value; `annotation` a comment; `other` anything else (content, pages, fonts, …)',
  }),
  allowed: z.boolean().meta({ description: 'This signature’s permission allows it' }),
  what: z.string(),
});

const VerifiedSignatureSchema = z.object({
  index: z.number().int(),
  field: z.string().nullable().meta({ description: 'The form field that holds it' }),
  reachable: z.boolean().meta({
    description:
      'A field of the document’s form holds it, as PDF readers show it; an unreachable one is reported and never counted as valid',
  }),
  kind: z.enum(['approval', 'certification', 'timestamp']).meta({
    description:
      '`approval`: a signature or seal; `certification`: the first signature, with a DocMDP permission; `timestamp`: a document timestamp (RFC 3161)',
  }),
  subfilter: z.string().meta({ description: 'e.g. `ETSI.CAdES.detached`, `ETSI.RFC3161`' }),
  signer: z.string().nullable().meta({ description: 'Subject of the signing certificate (for a document timestamp, the authority)' }),
  claimed_time: z.iso.datetime().nullable().meta({ description: 'The time its dictionary claims: not proven' }),
  trusted_time: z.iso.datetime().nullable().meta({ description: 'The earliest time a trusted timestamp proves it existed' }),
  time_source: z.enum(['signature_timestamp', 'document_timestamp', 'none']),
  signed_at: z.iso.datetime().nullable().meta({ description: 'The trusted time, else the time its dictionary claims' }),
  timestamp: TimestampSchema,
  chain: ChainSchema,
  pades_level: z
    .enum(['B-B', 'B-T', 'B-LT', 'B-LTA'])
    .nullable()
    .meta({ description: 'The PAdES baseline level it reaches (null: not a PAdES signature, or it fails)' }),
  docmdp: z
    .number()
    .int()
    .nullable()
    .meta({ description: 'A certification’s permission: 1 no change, 2 form filling and signing, 3 also comments' }),
  revision: z.number().int().nullable().meta({ description: 'The revision it signs (1-based)' }),
  coverage: z.enum(['whole_file', 'revision', 'none']),
  covers_whole_document: z.boolean(),
  changes_after: z
    .array(ChangeSchema)
    .meta({ description: 'Every change the revisions after it made, each judged against its permission' }),
  indication: IndicationSchema,
  sub_indication: SubIndicationSchema,
  valid: z.boolean().meta({ description: 'Its indication is TOTAL-PASSED' }),
  problem: z.string().nullable(),
});

const VerifiedSignerSchema = z.object({
  name: z.string(),
  email: z.string(),
  how: z.enum(['browser', 'l1', 'l2', 'offer']),
  mandate_id: z.string().nullable(),
  level: z.enum(['L1', 'L2']).nullable(),
  signed_at: z.iso.datetime(),
  mandate: z
    .object({
      id: z.string(),
      policy: MandatePolicySchema.nullable(),
      policy_checked: z.array(z.string()).meta({ description: 'The policy’s constraints this signature was checked against and kept to' }),
      in_policy: z.literal(true).meta({ description: 'An apply out of policy is refused, never signed' }),
      status_then: z
        .literal('active')
        .meta({ description: 'In force when it signed (checked under the mandate’s row lock at the commit)' }),
      status_now: z.enum(['pending', 'active', 'revoked', 'expired']),
      credential_id: z.string().nullable().meta({ description: 'The `jti` of the mandate credential attached to the revision it signed' }),
    })
    .nullable()
    .meta({ description: 'For a signature by mandate: its policy and its status then and now; null in the browser' }),
});

export const VerifyReportSchema = z.object({
  verdict: z.enum(['valid', 'invalid', 'indeterminate']).meta({
    description:
      '`valid`: every signature passed on a trusted chain and nothing after it changed the document beyond its permission; `invalid`: a signature failed (or there is none); `indeterminate`: nothing failed but something could not be established',
  }),
  valid: z.boolean().meta({ description: 'The verdict is `valid`' }),
  summary: z.string().meta({ description: 'One sentence: why this verdict' }),
  problems: z.array(z.string()).meta({ description: 'Everything that kept it from valid, in words' }),
  sha256: z.string(),
  issued_by_this_service: z.boolean().meta({ description: 'The file is byte for byte a revision this service issued' }),
  document_id: z.string().nullable(),
  revision: z.number().int().nullable(),
  completed: z.boolean().meta({ description: 'It is the completed document (certified, with the certificate of completion)' }),
  revisions: z.number().int().meta({ description: 'Revisions (incremental updates) the file holds' }),
  signatures: z.array(VerifiedSignatureSchema),
  signers: z.array(VerifiedSignerSchema).meta({ description: 'Who had signed by that revision and how: only for a byte-exact match' }),
  modified_after_seal: z.boolean().meta({ description: 'Something follows the last signature (allowed or not: see its changes_after)' }),
});
export type VerifyReportResponse = z.infer<typeof VerifyReportSchema>;

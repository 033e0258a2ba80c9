import { z } from 'zod';

const VerifiedSignatureSchema = z.object({
  kind: z.enum(['approval', 'certification', 'timestamp']).meta({
    description: '`approval`: a seal; `certification`: the completion seal (DocMDP); `timestamp`: a document timestamp (RFC 3161)',
  }),
  subfilter: z.string().meta({ description: 'e.g. `ETSI.CAdES.detached`, `ETSI.RFC3161`' }),
  signed_at: z.iso
    .datetime()
    .nullable()
    .meta({ description: 'Its timestamp’s time when it has a valid one, else the time its dictionary claims' }),
  signer: z.string().nullable().meta({ description: 'Subject of the signing certificate (for a document timestamp, the authority)' }),
  timestamp: z
    .object({ time: z.iso.datetime(), tsa: z.string(), valid: z.boolean() })
    .nullable()
    .meta({ description: 'The RFC 3161 timestamp: the signature’s own, or the document timestamp itself' }),
  covers_whole_document: z.boolean(),
  valid: z.boolean(),
  problem: z.string().nullable(),
});

const VerifiedSignerSchema = z.object({
  name: z.string(),
  email: z.string(),
  how: z.enum(['browser', 'l1', 'l2', 'offer']),
  mandate_id: z.string().nullable(),
  level: z.enum(['L1', 'L2']).nullable(),
  signed_at: z.iso.datetime(),
});

export const VerifyReportSchema = z.object({
  valid: z.boolean().meta({ description: 'Every signature and timestamp verifies, and nothing was added after the last one' }),
  sha256: z.string(),
  issued_by_this_service: z.boolean().meta({ description: 'The file is byte for byte a revision this service issued' }),
  document_id: z.string().nullable(),
  revision: z.number().int().nullable(),
  completed: z.boolean().meta({ description: 'It is the completed document (certified, with the certificate of completion)' }),
  signatures: z.array(VerifiedSignatureSchema),
  signers: z.array(VerifiedSignerSchema).meta({ description: 'Who had signed by that revision and how: only for a byte-exact match' }),
  modified_after_seal: z.boolean(),
  problems: z.array(z.string()).meta({ description: 'Why it is not valid, in words' }),
});
export type VerifyReportResponse = z.infer<typeof VerifyReportSchema>;

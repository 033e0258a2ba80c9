// Who signs an apply and what its signature records: the identity stamped and certified (a principal's
// registered name under a mandate), the method, the audit line `document.signed` and its event. Used by
// apply-commit.ts at its commit and apply-render.ts in the completion's attached trail.
import type { Knex } from 'knex';
import type { Db } from '../../db/connect';
import { type ApiKey, type Apply, type Document, type DocumentSigner, Mandate, Principal } from '../../db/models';
import type { Write } from '../../db/one-statement';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { type AuditStatement, auditWrite } from '../audit/audit';
import { eventWrite } from '../events/outbox';

/** Who is signing, as stamped and certified, and the tenant whose webhooks hear of it. */
export interface SigningIdentity {
  name: string;
  email: string;
  /** The principal's tenant for an apply by a principal; the document's for a browser signer. */
  tenantId: string;
}

/**
 * An apply by a principal (under a mandate) carries the principal's registered name and e-mail,
 * never the name the agent typed for the signer row: that stays a label (SPEC Guarantee 1).
 */
export async function signingIdentity(
  db: Db,
  apply: Apply,
  signer: DocumentSigner,
): Promise<{ identity: SigningIdentity; mandate?: Mandate }> {
  if (!apply.mandate_id) return { identity: { name: signer.name, email: signer.email, tenantId: signer.tenant_id } };
  const mandate = await Mandate.query(db).findById(apply.mandate_id);
  const principal = mandate ? await Principal.query(db).findById(mandate.principal_id) : undefined;
  if (!principal) throw errors.mandateInactive(t('errors.documents.apply_mandate_gone'));
  return { identity: { name: principal.name, email: principal.email, tenantId: principal.tenant_id }, mandate };
}

export function methodOf(apply: Apply): string {
  return apply.kind === 'mandate' ? `mandate:${apply.confirmation_level ?? 'l2'}` : `browser:${apply.input.appearance}`;
}

/** The facts of a signature the audit line records: when, how, and the hashes before and after it. */
interface SignedFacts {
  signedAt: Date;
  method: string;
  preSignHash: string;
  documentHash: string;
  revision: number;
}

/** The audit line `document.signed` of an apply: written at its commit, and shown earlier in a completion's attached trail. */
export function signedAuditEntry({
  signer,
  apply,
  identity,
  signed,
  agent,
}: {
  signer: DocumentSigner;
  apply: Apply;
  identity: SigningIdentity;
  signed: SignedFacts;
  agent: ApiKey | undefined;
}): AuditStatement<'document.signed'> {
  return {
    actor: agent ? { type: 'agent', id: agent.id } : { type: 'signer', id: signer.id, ip: apply.ip, userAgent: apply.user_agent },
    action: 'document.signed',
    data: {
      apply_id: apply.id,
      signer_id: signer.id,
      name: identity.name,
      email: identity.email,
      method: signed.method,
      mandate_id: apply.mandate_id,
      pre_sign_hash: signed.preSignHash,
      document_hash: signed.documentHash,
      revision: signed.revision,
      consent_text: apply.input.consent_text,
    },
  };
}

/**
 * What an apply's signature records at its commit, as writes for the commit's one statement: the
 * audit line and the `document.signed` event to each tenant that hears of it.
 */
export function signedWrites(
  trx: Knex.Transaction,
  {
    document,
    signer,
    apply,
    identity,
    agent,
    credential,
  }: {
    document: Document;
    signer: DocumentSigner;
    apply: Apply;
    identity: SigningIdentity;
    agent: ApiKey | undefined;
    /** The mandate credential the signature was applied under (null in the browser). */
    credential: string | null;
  },
): Write[] {
  const entry = signedAuditEntry({
    agent,
    signer,
    apply,
    identity,
    signed: {
      signedAt: apply.applied_at!,
      method: methodOf(apply),
      preSignHash: apply.pre_sign_hash!,
      documentHash: apply.document_hash!,
      revision: apply.revision!,
    },
  });
  const audit = auditWrite(trx, { tenantId: document.tenant_id, documentId: document.id, ...entry });
  const data = {
    document_id: document.id,
    signer_id: signer.id,
    principal: { email: identity.email, name: identity.name },
    agent: agent ? { api_key_id: agent.id, label: agent.label } : null,
    mandate_id: apply.mandate_id,
    mandate_credential: credential,
    confirmation_level: apply.confirmation_level,
    pre_sign_hash: apply.pre_sign_hash!,
    document_hash: apply.document_hash!,
  };
  // The sender's webhooks hear of every apply; an inbound principal's own tenant hears of theirs.
  return [audit, eventWrite(trx, [document.tenant_id, identity.tenantId], 'document.signed', data)];
}

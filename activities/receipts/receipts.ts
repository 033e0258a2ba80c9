import type { Document, DocumentSigner, Offer } from '../../db/models';

/** The agent signing protocol whose messages receipts settle (docs/protocol.md). */
export const PROTOCOL = 'agent-signing/0.1';

/**
 * A signer as a receipt names them: the identity stamped and certified (for a principal, their
 * registered name and e-mail), how they signed and under which mandate. Never an agent or a key.
 */
export interface ReceiptSigner {
  principal: { email: string; name: string };
  method: string | null;
  mandate_id: string | null;
  confirmation_level: string | null;
  signed_at: string | null;
  pre_sign_hash: string | null;
  document_hash: string | null;
  /**
   * The credential of the mandate this signature was applied under (a compact JWS, docs/receipts.md),
   * so a counterparty verifies offline that it was in force; null in the browser, and for a mandate
   * granted before mandates had credentials.
   */
  mandate_credential: string | null;
}

/** A signer as a receipt names them; `credentials` are the mandate credentials by mandate id (credentialsOf). */
export function receiptSigner(signer: DocumentSigner, credentials: Map<string, string>): ReceiptSigner {
  return {
    principal: { email: signer.signed_email ?? signer.email, name: signer.signed_name ?? signer.name },
    method: signer.method,
    mandate_id: signer.mandate_id,
    confirmation_level: signer.confirmation_level,
    signed_at: signer.signed_at?.toISOString() ?? null,
    pre_sign_hash: signer.pre_sign_hash,
    document_hash: signer.document_hash,
    mandate_credential: (signer.mandate_id && credentials.get(signer.mandate_id)) || null,
  };
}

/** The claims of an accepted offer's receipt: the offer, the hashes it was bound to and produced, who signed and how. */
export function offerReceiptClaims(
  offer: Offer,
  settled: {
    signer: DocumentSigner;
    offeror: { email: string; name: string };
    documentHash: string;
    finalSha256: string;
    credentials: Map<string, string>;
  },
) {
  return {
    receipt_type: 'offer.accepted',
    protocol: PROTOCOL,
    offer_id: offer.id,
    document_id: offer.document_id,
    document_name: offer.document_name,
    terms: offer.terms,
    offeror: settled.offeror,
    pre_sign_hash: offer.pre_sign_hash,
    document_hash: settled.documentHash,
    final_sha256: settled.finalSha256,
    mandate_id: settled.signer.mandate_id,
    confirmation_level: settled.signer.confirmation_level,
    signers: [receiptSigner(settled.signer, settled.credentials)],
  };
}

/**
 * The claims of a completed document's dual-attestation receipt: the original SHA-256 and the one
 * after the last signature, and every signer with how they signed (each principal by mandate, each
 * person in the browser). It names no final SHA-256: the completed PDF carries this very receipt
 * as an attachment, under the certification seal that binds the two.
 */
export function completionReceiptClaims(
  document: Document,
  signers: ReceiptSigner[],
  completion: { signedSha256: string; completedAt: Date },
) {
  return {
    receipt_type: 'document.completed',
    protocol: PROTOCOL,
    document_id: document.id,
    document_name: document.name,
    original_sha256: document.original_sha256,
    signed_sha256: completion.signedSha256,
    completed_at: completion.completedAt.toISOString(),
    signers,
  };
}

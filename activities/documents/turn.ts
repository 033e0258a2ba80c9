import type { DocumentSigner } from '../../db/models';

type InOrder = Pick<DocumentSigner, 'id' | 'position' | 'status'>;

/**
 * Whom a signer waits for before they may act: under strict order, every earlier signer who has not
 * signed; nobody otherwise. The one rule of whose turn it is (apply, invitations, the sign page).
 */
export function waitingFor<S extends InOrder>(document: { strict_order: boolean }, signers: S[], signer: InOrder): S[] {
  if (!document.strict_order) return [];
  return signers.filter((other) => other.position < signer.position && other.status !== 'signed');
}

/** A signer may act now when they are still pending and wait for nobody. */
export function maySignNow(document: { strict_order: boolean }, signers: InOrder[], signer: InOrder): boolean {
  return signer.status === 'pending' && waitingFor(document, signers, signer).length === 0;
}

/** The pending signers allowed to act now: all of them, or under strict order only the first one pending. */
export function signersAllowedNow<S extends InOrder>(document: { strict_order: boolean }, signers: S[]): S[] {
  return signers.filter((signer) => maySignNow(document, signers, signer));
}

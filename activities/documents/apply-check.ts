// The checks of SPEC's apply procedure that need no PDF: run when an apply is recorded and again when it is made.
import type { Db } from '../../db/connect';
import { type ApplyInput, type Document, type DocumentSigner, Mandate } from '../../db/models';
import { errors } from '../../lib/errors';
import { unfilledWidgets, type Widget } from '../../lib/pdf/widgets';
import { maySignNow, waitingFor } from '../signers/turn';

export function widgetsOf(document: Document, signer: DocumentSigner): Widget[] {
  return document.widgets.filter((widget) => widget.role === signer.role);
}

/**
 * Steps 2–4 of SPEC's apply procedure that need no PDF: the document is sent and the signer has not
 * signed, strict order, a signature widget exists, and required widgets the appearance cannot fill
 * have values; for an offer's apply, the PDF is still the one the offer was bound to. The same check
 * runs before an apply is accepted and again when it is applied.
 */
export function checkApplicable(
  document: Document,
  signers: DocumentSigner[],
  signer: DocumentSigner,
  input: Pick<ApplyInput, 'values' | 'expected_sha256'>,
): void {
  if (signer.status === 'signed') throw errors.alreadySigned(`${signer.name} already signed this document.`);
  if (document.status !== 'sent') {
    const why = document.status === 'draft' ? 'it has not been sent yet' : `it is ${document.status}`;
    throw errors.invalidState(`This document cannot be signed: ${why}.`);
  }
  if (document.expires_at && document.expires_at.getTime() <= Date.now())
    throw errors.expired(`This document expired unsigned at ${document.expires_at.toISOString()}.`);
  if (signer.status === 'declined') throw errors.invalidState(`${signer.name} declined this document.`);
  if (!maySignNow(document, signers, signer)) {
    const before = waitingFor(document, signers, signer);
    throw errors.strictOrder(`Strict signing order: ${before.map((s) => s.name).join(', ')} must sign first.`);
  }
  if (input.expected_sha256 && document.current_sha256 !== input.expected_sha256) {
    throw errors.documentChanged(
      `The document changed since the offer was made: its PDF is now ${document.current_sha256}, the offer was bound to ${input.expected_sha256}.`,
    );
  }
  const widgets = widgetsOf(document, signer);
  if (!widgets.some((widget) => widget.type === 'signature')) {
    throw errors.missingSignatureFields(`The document has no signature field for ${signer.name} (role ${signer.role}).`);
  }
  const unfilled = unfilledWidgets(widgets, input.values);
  if (unfilled.length > 0) {
    throw errors.unfilledFields(
      `Required fields are not filled: ${unfilled.map((w) => w.label ?? w.id).join(', ')}.`,
      unfilled.map((widget) => ({ path: `values.${widget.id}`, message: `required ${widget.type}` })),
    );
  }
}

/** A mandate apply stops the moment its mandate is revoked or expires (SPEC: Mandate states). */
export async function checkMandateInForce(db: Db, mandateId: string): Promise<void> {
  const mandate = await Mandate.query(db).findById(mandateId);
  if (!mandate?.isInForce()) throw errors.mandateInactive('The mandate was revoked or has expired.');
}

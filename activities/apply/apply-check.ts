// The checks of SPEC's apply procedure that need no PDF. A request runs them all when it records an
// apply; the commit runs again, once and under its row locks, those whose answer can change meanwhile.
import type { ApplyInput, Document, DocumentSigner, Mandate } from '../../db/models';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { lockedPrefill, unfilledWidgets, type Widget } from '../../lib/pdf/widgets';
import { maySignNow, waitingFor } from '../documents/turn';

/** The widgets the signer fills or is stamped for: their role's, but for those the sender's locked values fill. */
export function widgetsOf(document: Document, signer: DocumentSigner): Widget[] {
  return document.widgets.filter((widget) => widget.role === signer.role && !lockedPrefill(widget));
}

/**
 * Steps 2–4 of SPEC's apply procedure that need no PDF: the document is sent and the signer has not
 * signed, strict order, a signature widget exists, and required widgets the appearance cannot fill
 * have values; for an offer's apply, the PDF is still the one the offer was bound to. Run before an
 * apply is recorded (and before an offer or L1 request is made).
 */
export function checkApplicable(
  document: Document,
  signers: DocumentSigner[],
  signer: DocumentSigner,
  input: Pick<ApplyInput, 'values' | 'expected_sha256'>,
): void {
  checkSignableNow(document, signers, signer, input);
  const widgets = widgetsOf(document, signer);
  if (!widgets.some((widget) => widget.type === 'signature')) {
    throw errors.missingSignatureFields(t('errors.documents.document_no_signature_field_role', { name: signer.name, role: signer.role }));
  }
  const unfilled = unfilledWidgets(widgets, input.values);
  if (unfilled.length > 0) {
    throw errors.unfilledFields(
      t('errors.documents.required_fields_not_filled', { fields: unfilled.map((w) => w.label ?? w.id).join(', ') }),
      unfilled.map((widget) => ({ path: `values.${widget.id}`, message: `required ${widget.type}` })),
    );
  }
}

/**
 * What `checkApplicable` checks that can change after an apply was recorded (the widgets and the
 * input cannot): the document is still sent and unexpired, the signer still pending and their turn
 * come, and an offer's PDF unchanged. The commit runs it on the rows it holds locked.
 */
export function checkSignableNow(
  document: Document,
  signers: DocumentSigner[],
  signer: DocumentSigner,
  input: Pick<ApplyInput, 'expected_sha256'>,
): void {
  if (signer.status === 'signed') throw errors.alreadySigned(t('errors.documents.already_signed_document', { name: signer.name }));
  if (document.status !== 'sent') {
    if (document.status === 'draft') throw errors.invalidState(t('errors.documents.document_cannot_signed_not_been'));
    throw errors.invalidState(t('errors.documents.document_cannot_signed', { status: document.status }));
  }
  if (document.expires_at && document.expires_at.getTime() <= Date.now())
    throw errors.expired(t('errors.documents.document_expired_unsigned', { expiresAt: document.expires_at.toISOString() }));
  if (signer.status === 'declined') throw errors.invalidState(t('errors.documents.declined_document', { name: signer.name }));
  if (!maySignNow(document, signers, signer)) {
    const before = waitingFor(document, signers, signer);
    throw errors.strictOrder(t('errors.documents.strict_signing_order_must_sign', { names: before.map((s) => s.name).join(', ') }));
  }
  if (input.expected_sha256 && document.current_sha256 !== input.expected_sha256) {
    throw errors.documentChanged(
      t('errors.documents.document_changed_since_offer_made', {
        currentSha256: document.current_sha256,
        boundSha256: input.expected_sha256,
      }),
    );
  }
}

/** A mandate apply stops the moment its mandate is revoked or expires (SPEC: Mandate states); the commit checks the row it holds. */
export function checkMandateInForce(mandate: Mandate | undefined): void {
  if (!mandate?.isInForce()) throw errors.mandateInactive(t('errors.documents.mandate_revoked_expired'));
}

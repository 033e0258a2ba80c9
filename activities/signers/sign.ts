import type { Db } from '../../db/connect';
import type { Document } from '../../db/models';
import type { BlobStore } from '../../lib/blobs';
import type { Config } from '../../lib/config/config';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { bestEffort } from '../../lib/temporal';
import { widgetsOf } from '../apply/apply-check';
import type { ApplyDeps } from '../apply/apply-deps';
import { type ApplyOutcome, rejectionOf } from '../apply/apply-outcome';
import { declineDocument } from '../apply/apply-record';
import { requestApply } from '../apply/orchestration';
import { recordObservation } from '../audit/audit';
import { settleLinkedTransfers } from '../transfers/release';
import type { Workflows } from '../workflows';
import { type SignerClient, type SignerView, signerActor } from './sign-link';
import { checkValues, decodeImage, type SignerValues } from './submission';

/** Shown above the sign button and kept with every browser apply in the audit trail. */
export const CONSENT_TEXT =
  'I agree to sign this document electronically. My electronic signature is the legal equivalent of my handwritten signature, and I consent to do business electronically.';

export type SignAtLinkDeps = ApplyDeps & { workflows: Workflows; config: Config };

/** What a signer submits at their link: the images as `data:` URLs, as the page sends them. */
export interface LinkSubmission {
  signature: { method: 'drawn' | 'typed' | 'uploaded'; image: string };
  initials?: { image: string };
  values: SignerValues;
}

/**
 * The signer's apply, handed to the document's workflow; waits up to SVC_APPLY_WAIT_MS for its
 * outcome (pending after that) and throws the refusal of a rejected one.
 */
export async function signAtLink(
  deps: SignAtLinkDeps,
  view: SignerView,
  submission: LinkSubmission,
  client: SignerClient,
): Promise<ApplyOutcome> {
  const { signer, document, signers } = view;
  const widgets = widgetsOf(document, signer);
  checkValues(widgets, submission.values);
  // The sender's editable values the signer changed: kept with the apply and in its audit line.
  const changed = widgets.flatMap((widget) => {
    const to = submission.values[widget.id];
    return widget.prefill?.editable && to !== undefined && to !== widget.prefill.value
      ? [{ field: widget.id, from: widget.prefill.value, to }]
      : [];
  });
  const outcome = await requestApply(deps, {
    record: {
      document,
      signers,
      signer,
      kind: 'browser',
      input: {
        values: submission.values,
        appearance: submission.signature.method,
        consent_text: CONSENT_TEXT,
        ...(changed.length > 0 ? { prefill_changed: changed } : {}),
      },
      signatureImage: decodeImage(submission.signature.image, 'signature.image'),
      initialsImage: submission.initials ? decodeImage(submission.initials.image, 'initials.image') : undefined,
      actor: signerActor(signer, client),
    },
  });
  if (outcome.status === 'rejected') throw rejectionOf(outcome);
  return outcome;
}

/** The signer declines: the document is declined, and its workflow is told it settled. */
export async function declineAtLink(
  deps: { db: Db; workflows: Workflows; config: Config },
  view: SignerView,
  reason: string | undefined,
  client: SignerClient,
): Promise<{ documentStatus: string }> {
  const declined = await declineDocument(deps.db, { signerId: view.signer.id, reason, actor: signerActor(view.signer, client) });
  await bestEffort(deps.workflows, `settled signal to ${view.document.id}`, () =>
    deps.workflows.documentSettled(view.document.id, 'declined'),
  );
  // Its sign-to-unlock packages never release now; their waits also find out on their own next look.
  await bestEffort(deps.workflows, `transfers linked to ${view.document.id}`, () => settleLinkedTransfers(deps, view.document.id));
  return { documentStatus: declined.status };
}

/** Until when a signer can still fetch a completed document from their sign link (SVC_COMPLETED_COPY_TTL_MS); null before completion. */
export function completedCopyUntil(document: Pick<Document, 'completed_at'>, config: Pick<Config, 'durations'>): Date | null {
  return document.completed_at ? new Date(document.completed_at.getTime() + config.durations.completedCopyMs) : null;
}

/**
 * The current sealed PDF for the signer to read (after completion: the completed copy, for as long
 * as completedCopyUntil says); each view is on the record with the hash it showed.
 */
export async function documentForSigner(
  deps: { db: Db; blobs: BlobStore; config: Config },
  view: SignerView,
  client: SignerClient,
): Promise<Buffer> {
  const { signer, document } = view;
  const until = completedCopyUntil(document, deps.config);
  if (until && until.getTime() < Date.now())
    throw errors.expired(t('errors.signers.completed_copy_available_from_link', { until: until.toISOString().slice(0, 10) }));
  await recordObservation(deps.db, {
    tenantId: document.tenant_id,
    documentId: document.id,
    actor: signerActor(signer, client),
    action: 'document.viewed',
    data: { signer_id: signer.id, sha256: document.current_sha256 },
  });
  return deps.blobs.get(document.current_sha256);
}

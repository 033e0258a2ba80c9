import { type ApplyOutcome, documentStatusAfter } from '../../activities/apply/apply-outcome';
import type { MailState } from '../../activities/mail/status';
import { confirmUrl } from '../../activities/signing/signing';
import type { Mandate, SignRequest } from '../../db/models';
import type { SignRequestResponse, SignResult } from './schema';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** An L1 sign request as its agent sees it, with the state of the confirm mail to the principal. */
export function presentSignRequest(
  request: SignRequest,
  options: { appUrl: string; secret: Buffer; mail?: MailState },
): SignRequestResponse {
  return {
    sign_request_id: request.id,
    document_id: request.document_id,
    mandate_id: request.mandate_id,
    // `confirming` is the moment between the principal's click and the apply: still open to the agent.
    status: request.status === 'confirming' ? 'open' : request.status,
    reason: request.reason,
    confirm_url: confirmUrl(options.appUrl, options.secret, request.id),
    expires_at: request.expires_at.toISOString(),
    created_at: request.created_at.toISOString(),
    decided_at: iso(request.decided_at),
    error: request.error_code ? { code: request.error_code, message: request.error_message ?? '' } : null,
    mail: options.mail ? { status: options.mail.status, error: options.mail.error } : null,
  };
}

/** The answer of an L2 sign: applied, or still being applied (202) when the wait ran out first. */
export function presentSignResult(documentId: string, mandate: Mandate, outcome: ApplyOutcome): SignResult {
  return {
    status: outcome.status === 'applied' ? 'applied' : 'processing',
    document_id: documentId,
    mandate_id: mandate.id,
    confirmation_level: 'L2',
    pre_sign_hash: outcome.pre_sign_hash ?? null,
    document_hash: outcome.document_hash ?? null,
    document_status: documentStatusAfter(outcome),
  };
}

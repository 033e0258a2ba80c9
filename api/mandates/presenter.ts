import type { MailState } from '../../activities/mail/status';
import { DAILY_L2_CAP } from '../../activities/mandates/cap';
import { mandateStatus } from '../../activities/mandates/mandates';
import { confirmUrl } from '../../activities/mandates/signing';
import type { ApiKey, Mandate, SignRequest } from '../../db/models';
import type { MandateResponse } from './schema';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function presentMandate(mandate: Mandate, key: ApiKey, appliesToday: number): MandateResponse {
  return {
    mandate_id: mandate.id,
    name: mandate.name,
    key: { id: key.id, label: key.label },
    confirmation_level: mandate.confirmation_level,
    mode: mandate.mode,
    status: mandateStatus(mandate) as MandateResponse['status'],
    expires_at: iso(mandate.expires_at),
    consent_version: mandate.consent_version,
    granted_at: iso(mandate.confirmed_at),
    revoked_at: iso(mandate.revoked_at),
    daily_l2_cap: DAILY_L2_CAP,
    l2_applies_today: appliesToday,
  };
}

export function presentSignRequest(request: SignRequest, options: { appUrl: string; secret: Buffer; mail?: MailState }) {
  return {
    sign_request_id: request.id,
    document_id: request.document_id,
    mandate_id: request.mandate_id,
    // `confirming` is the moment between the principal's click and the apply: still open to the agent.
    status: (request.status === 'confirming' ? 'open' : request.status) as 'open' | 'applied' | 'declined' | 'expired' | 'failed',
    reason: request.reason,
    confirm_url: confirmUrl(options.appUrl, options.secret, request.id),
    expires_at: request.expires_at.toISOString(),
    created_at: request.created_at.toISOString(),
    decided_at: iso(request.decided_at),
    error: request.error_code ? { code: request.error_code, message: request.error_message ?? '' } : null,
    mail: options.mail ?? null,
  };
}

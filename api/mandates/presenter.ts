import { mandateStatus } from '../../activities/mandates/mandates';
import { dailyCapOf } from '../../activities/mandates/policy';
import type { ApiKey, Mandate } from '../../db/models';
import type { MandateResponse } from './schema';

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function presentMandate(mandate: Mandate, key: ApiKey, appliesToday: number): MandateResponse {
  return {
    mandate_id: mandate.id,
    name: mandate.name,
    key: { id: key.id, label: key.label },
    confirmation_level: mandate.confirmation_level,
    mode: mandate.mode,
    // A granted mandate is never pending: only those are listed.
    status: mandateStatus(mandate) as MandateResponse['status'],
    expires_at: iso(mandate.expires_at),
    consent_version: mandate.consent_version,
    granted_at: iso(mandate.confirmed_at),
    revoked_at: iso(mandate.revoked_at),
    policy: mandate.policy ?? null,
    daily_l2_cap: dailyCapOf(mandate),
    l2_applies_today: appliesToday,
    credential: mandate.credential_jws,
  };
}

import type { Caller } from '../../activities/accounts/accounts';
import { allowedLevels } from '../../activities/mandates/mandates';
import type { Mandate } from '../../db/models';
import { FLAG_NAMES, type FlagSnapshot } from '../../lib/config/flags';
import type { FlagsResponse, MeResponse } from './schema';

/** Every flag by name, so a flag added to the registry is listed here and in the schema alike. */
export function presentFlags(flags: FlagSnapshot): FlagsResponse {
  return Object.fromEntries(FLAG_NAMES.map((name) => [name, flags[name]])) as FlagsResponse;
}

/** The calling key (never its secret), its principal, plan, scopes, flags and the mandate in force. */
export function presentMe(caller: Caller, flags: FlagSnapshot, inForce: Mandate[]): MeResponse {
  const { apiKey, principal, tenant } = caller;
  const mandate = inForce[0];
  return {
    key: {
      id: apiKey.id,
      label: apiKey.label,
      prefix: apiKey.prefix,
      created_at: apiKey.created_at.toISOString(),
      last_used_at: apiKey.last_used_at ? apiKey.last_used_at.toISOString() : null,
    },
    principal: { id: principal.id, email: principal.email, name: principal.name },
    tenant_id: tenant.id,
    scopes: [...apiKey.scopes],
    plan: tenant.plan,
    ...(mandate
      ? {
          signing_mandate: {
            id: mandate.id,
            name: mandate.name,
            confirmation_level: mandate.confirmation_level,
            mode: mandate.mode,
            expires_at: mandate.expires_at ? mandate.expires_at.toISOString() : null,
          },
        }
      : {}),
    flags: presentFlags(flags),
    allowed_confirmation_levels: allowedLevels(inForce, flags),
  };
}

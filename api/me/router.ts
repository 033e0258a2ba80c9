import type { Caller } from '../../activities/accounts/accounts';
import { allowedLevels, mandatesInForce } from '../../activities/mandates/mandates';
import type { Mandate } from '../../db/models';
import type { FlagSnapshot } from '../../lib/config/flags';
import type { Services } from '../../lib/services';
import { callerOf, type Routes } from '../http/route';
import { FlagsSchema, type MeResponse, MeResponseSchema } from './schema';

function presentMe(caller: Caller, flags: FlagSnapshot, inForce: Mandate[]): MeResponse {
  const { apiKey, principal, tenant } = caller;
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
    scopes: apiKey.scopes,
    plan: tenant.plan,
    ...(inForce[0]
      ? {
          signing_mandate: {
            id: inForce[0].id,
            name: inForce[0].name,
            confirmation_level: inForce[0].confirmation_level,
            mode: inForce[0].mode,
            expires_at: inForce[0].expires_at ? inForce[0].expires_at.toISOString() : null,
          },
        }
      : {}),
    flags: { ...flags },
    allowed_confirmation_levels: allowedLevels(inForce, flags),
  };
}

export function meRoutes(routes: Routes, deps: Services): void {
  routes.add(
    {
      method: 'get',
      path: '/me',
      operationId: 'getMe',
      summary: 'The calling key, its principal, plan, scopes, flags and mandate',
      tag: 'Account',
      response: MeResponseSchema,
    },
    async (ctx) => {
      const caller = callerOf(ctx);
      return presentMe(caller, deps.config.flags.values, await mandatesInForce(deps.db, caller.apiKey.id));
    },
  );
  routes.add(
    {
      method: 'get',
      path: '/flags',
      operationId: 'getFlags',
      summary: 'The feature flag snapshot of this deployment',
      tag: 'Account',
      response: FlagsSchema,
    },
    async () => ({ ...deps.config.flags.values }),
  );
}

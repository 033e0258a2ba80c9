import type { Caller } from '../../activities/accounts/accounts';
import type { FlagSnapshot } from '../../activities/config/flags';
import type { Deps } from '../../worker/deps';
import { callerOf, type Routes } from '../http/route';
import { FlagsSchema, MeResponseSchema, type MeResponse } from './schema';

function presentMe(caller: Caller, flags: FlagSnapshot): MeResponse {
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
    flags: { ...flags },
    // No mandate can exist for a key yet, so no confirmation level is open to it.
    allowed_confirmation_levels: [],
  };
}

export function meRoutes(routes: Routes, deps: Deps): void {
  routes.add(
    { method: 'get', path: '/me', operationId: 'getMe', summary: 'The calling key, its principal, plan, scopes, flags and mandate', tag: 'Account', response: MeResponseSchema },
    async (ctx) => presentMe(callerOf(ctx), deps.config.flags.values),
  );
  routes.add(
    { method: 'get', path: '/flags', operationId: 'getFlags', summary: 'The feature flag snapshot of this deployment', tag: 'Account', response: FlagsSchema },
    async () => ({ ...deps.config.flags.values }),
  );
}

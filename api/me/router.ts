import { mandatesInForce } from '../../activities/mandates/mandates';
import type { Services } from '../../activities/services';
import { callerOf, type Routes } from '../http/route';
import { presentFlags, presentMe } from './presenter';
import { FlagsSchema, MeResponseSchema } from './schema';

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
    async () => presentFlags(deps.config.flags.values),
  );
}

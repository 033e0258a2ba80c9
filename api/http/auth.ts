import { authenticateKey, type Caller } from '../../activities/accounts/accounts';
import { errors } from '../../lib/errors';
import type { Services } from '../../lib/services';
import type { ApiContext } from './route';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The caller behind `Authorization: Bearer <key>`; 401 for a missing, malformed, unknown or revoked key. */
export async function authenticate(ctx: ApiContext, deps: Pick<Services, 'db' | 'keyUsage'>): Promise<Caller> {
  const header = ctx.get('authorization');
  if (!header) throw errors.unauthorized();
  const match = BEARER.exec(header);
  if (!match) throw errors.unauthorized('The Authorization header must be "Bearer <API key>".');
  const caller = await authenticateKey(deps.db, match[1], (apiKey, now) => deps.keyUsage.touch(apiKey, now));
  if (!caller) throw errors.unauthorized('The API key is unknown or revoked.');
  ctx.state.caller = caller;
  return caller;
}

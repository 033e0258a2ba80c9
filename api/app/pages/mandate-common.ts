import { mandatesOfPrincipal } from '../../../activities/mandates/mandates';
import type { Services } from '../../../activities/services';
import { DAILY_L2_CAP } from '../../../activities/signing/cap';
import type { Mandate, MandateMode, Principal } from '../../../db/models';
import { errors } from '../../../lib/errors';

// What the mandates page (mandates.ts) and the grant page (mandate-grant.ts) both say and look up.

export const MODE_WORDS: Record<MandateMode, string> = {
  outbound: 'documents you send',
  inbound: 'documents sent to you',
  both: 'documents you send and documents sent to you',
};

export const LEVEL_WORDS = {
  L1: 'you confirm each signature in this app',
  L2: `it signs without asking, and you get an e-mail each time (at most ${DAILY_L2_CAP} a day)`,
} as const;

export async function ownMandate(deps: Services, principal: Principal, id: string): Promise<Mandate> {
  const mandate = (await mandatesOfPrincipal(deps.db, principal.id)).find((candidate) => candidate.id === id);
  if (!mandate) throw errors.notFound('No such mandate of yours.');
  return mandate;
}

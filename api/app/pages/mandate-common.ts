import { DAILY_L2_CAP } from '../../../activities/apply/cap';
import { mandatesOfPrincipal } from '../../../activities/mandates/mandates';
import type { Services } from '../../../activities/services';
import type { ConfirmationLevel, Mandate, MandateMode, Principal } from '../../../db/models';
import { errors } from '../../../lib/errors';
import { t } from '../../../lib/i18n';
import { catalogueWords } from './common';

// What the mandates page (mandates.ts) and the grant page (mandate-grant.ts) both say and look up.

export const MODE_WORDS: Readonly<Record<MandateMode, string>> = catalogueWords({
  outbound: 'app.mandate.mode.outbound',
  inbound: 'app.mandate.mode.inbound',
  both: 'app.mandate.mode.both',
});

export const LEVEL_WORDS: Readonly<Record<ConfirmationLevel, string>> = catalogueWords(
  { L1: 'app.mandate.level.L1', L2: 'app.mandate.level.L2' },
  { cap: DAILY_L2_CAP },
);

export async function ownMandate(deps: Services, principal: Principal, id: string): Promise<Mandate> {
  const mandate = (await mandatesOfPrincipal(deps.db, principal.id)).find((candidate) => candidate.id === id);
  if (!mandate) throw errors.notFound(t('app.mandate.not_found'));
  return mandate;
}

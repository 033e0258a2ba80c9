import { createApplyActivities } from '../activities/apply/activities';
import { createBulkActivities } from '../activities/bulk/activities';
import { createDocumentActivities } from '../activities/documents/activities';
import { createHealthActivities } from '../activities/health/health';
import { createMailActivities } from '../activities/mail/activities';
import { createOfferActivities } from '../activities/offers/activities';
import type { Services } from '../activities/services';
import { createSignRequestActivities } from '../activities/signing/sign-request-activities';
import { createTransferActivities } from '../activities/transfers/activities';
import { createWebhookActivities } from '../activities/webhooks/activities';
import { waitingOutDatabaseOutages } from './outages';
import { withTypedFailures } from './typed-failures';

/** Every activity the worker registers, built over the process's dependencies. */
export function createActivities(deps: Services) {
  return withTypedFailures(
    waitingOutDatabaseOutages(
      {
        ...createHealthActivities({ db: deps.db }),
        ...createDocumentActivities(deps),
        ...createApplyActivities(deps),
        ...createBulkActivities(deps),
        ...createSignRequestActivities(deps),
        ...createOfferActivities(deps),
        ...createTransferActivities(deps),
        ...createWebhookActivities(deps),
        ...createMailActivities(deps),
      },
      deps.db,
    ),
  );
}

import { createDocumentActivities } from '../activities/documents/activities';
import { createHealthActivities } from '../activities/health/health';
import { createSignRequestActivities } from '../activities/mandates/sign-request-activities';
import { createWebhookActivities } from '../activities/webhooks/activities';
import type { Deps } from './deps';

/** Every activity the worker registers, built over the process's dependencies. */
export function createActivities(deps: Deps) {
  return {
    ...createHealthActivities({ db: deps.db }),
    ...createDocumentActivities(deps),
    ...createSignRequestActivities(deps),
    ...createWebhookActivities(deps),
  };
}

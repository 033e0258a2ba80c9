// The stories `npm run record-histories` runs against the real service, one or more workflow
// histories each: the interesting paths of every workflow, with short durations (workflow inputs).
// One module a workflow: test/stories/.
import { PING_WORKFLOW, pingWorkflowId } from '../workflows/ping/shared';
import { BULK_STORIES } from './stories/bulk';
import type { Story } from './stories/context';
import { DOCUMENT_STORIES } from './stories/documents';
import { OFFER_STORIES } from './stories/offers';
import { SIGN_REQUEST_STORIES } from './stories/sign-requests';
import { TRANSFER_STORIES } from './stories/transfers';
import { WEBHOOK_STORIES } from './stories/webhooks';

export { type Context, DURATIONS, type Story } from './stories/context';
export { RELAY, recordRelay } from './stories/webhooks';

export const STORIES: Story[] = [
  ...DOCUMENT_STORIES,
  ...SIGN_REQUEST_STORIES,
  ...WEBHOOK_STORIES,
  ...OFFER_STORIES,
  ...TRANSFER_STORIES,
  ...BULK_STORIES,
  {
    histories: ['ping/ping'],
    async run({ stack }) {
      const workflowId = pingWorkflowId(`replay-${Date.now()}`);
      await stack.deps.temporal.client.workflow.execute(PING_WORKFLOW, {
        workflowId,
        taskQueue: stack.deps.temporal.taskQueue,
        args: [{ message: 'replay' }],
      });
      return { 'ping/ping': workflowId };
    },
  },
];

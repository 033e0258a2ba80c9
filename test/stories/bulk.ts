// Stories of the bulk send workflow: a bulk whose items are made and sent a few at once, one refused.
import { bulkWorkflowId } from '../../workflows/bulk/shared';
import { call } from '../http';
import { type Story, workflowResult } from './context';

export const BULK_STORIES: Story[] = [
  {
    histories: ['bulk/completed'],
    async run({ stack, owner, nda }) {
      const signers = (n: number) => [
        { name: `Ann ${n}`, email: `ann-bulk-${n}-${Date.now()}@example.test` },
        { name: `Bob ${n}`, email: `bob-bulk-${n}-${Date.now()}@example.test` },
      ];
      const started = await call(stack.url, 'POST', '/v1/documents/bulk', {
        key: owner.key,
        body: {
          template_id: nda.id,
          name: 'Replay bulk',
          send: true,
          // The second item has one signer too many for the NDA's two roles: refused on its own.
          items: [{ signers: signers(0) }, { signers: [...signers(1), ...signers(2).slice(0, 1)] }, { signers: signers(3) }],
        },
      });
      if (started.status !== 202) throw new Error(`bulk: ${started.status} ${started.text}`);
      await workflowResult(stack, bulkWorkflowId(started.body.bulk_id));
      return { 'bulk/completed': bulkWorkflowId(started.body.bulk_id) };
    },
  },
];

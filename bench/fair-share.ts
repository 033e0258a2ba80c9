// `npm run bench -- fair-share`: tenant B's create + L2 apply (POST /documents, then POST
// /documents/:id/sign), idle and while tenant A posts five bulk sends of 500 (two run, three are
// refused at its bound), with the ratio of the two. Nothing here asserts a time: it prints them.

import { BulkSendItem } from '../db/models';
import { seedSamples, sentNda } from '../test/documents';
import { createAccount } from '../test/factories';
import { call } from '../test/http';
import { mandatedAccount, principalOf } from '../test/principal';
import { startSmtpListener } from '../test/smtp';
import type { Stack } from '../test/stack';
import { bulkWorkflowId } from '../workflows/bulk/shared';
import { median, ms, startHarness } from './harness';
import { summarize } from './summary';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const BULKS = 5;
const ITEMS = 500;

async function main() {
  const smtp = await startSmtpListener();
  const harness = await startHarness({ SVC_APPLY_WAIT_MS: '60000', SMTP_URL: smtp.url });
  const stack = { url: harness.url, deps: harness.deps, config: harness.deps.config, smtp } as unknown as Stack;
  const bulkIds: string[] = [];
  try {
    const bulky = await createAccount(harness.deps.db, { name: 'Bulk Betty' });
    const bulkyNda = (await seedSamples(stack, bulky)).nda;
    const owner = await createAccount(harness.deps.db, { name: 'Olga Other' });
    const nda = (await seedSamples(stack, owner)).nda;
    const { account: agent } = await mandatedAccount(stack, { name: 'Petra Principal', label: 'b agent' });
    const principal = await principalOf(stack, agent);

    /** Tenant B's document created and signed at L2 by its principal's agent, in ms. */
    const createAndSign = async (round: string): Promise<number> => {
      const started = performance.now();
      const document = await sentNda(stack, owner, nda, principal, { name: `B ${round}` });
      const signed = await call(harness.url, 'POST', `/v1/documents/${document.document_id}/sign`, {
        key: agent.key,
        body: { reason: 'Agreed' },
      });
      if (signed.status !== 200 || signed.body.status !== 'applied') throw new Error(`sign answered ${signed.status}: ${signed.text}`);
      return performance.now() - started;
    };
    const rounds = async (tag: string) => {
      const samples: number[] = [];
      for (let round = 0; round <= ROUNDS; round += 1) {
        const took = await createAndSign(`${tag} ${round}`);
        if (round > 0) samples.push(took); // round 0 warms up
      }
      return samples;
    };

    const idle = median(await rounds('idle'));

    const statuses: number[] = [];
    for (let n = 0; n < BULKS; n += 1) {
      const reply = await call(harness.url, 'POST', '/v1/documents/bulk', {
        key: bulky.key,
        body: {
          template_id: bulkyNda.id,
          name: `Bulk ${n}`,
          send: true,
          items: Array.from({ length: ITEMS }, (_, index) => ({
            signers: [
              { name: `Ann ${n} ${index}`, email: `ann-${n}-${index}@example.test` },
              { name: `Bob ${n} ${index}`, email: `bob-${n}-${index}@example.test` },
            ],
          })),
        },
      });
      statuses.push(reply.status);
      if (reply.status === 202) bulkIds.push(reply.body.bulk_id);
    }
    // A's items are being made before B is measured.
    const made = () => BulkSendItem.query(harness.deps.db).whereIn('bulk_id', bulkIds).whereNot({ status: 'pending' }).resultSize();
    for (let i = 0; (await made()) === 0; i += 1) {
      if (i > 600) throw new Error('tenant A’s bulks made nothing in a minute');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const madeBefore = await made();
    const loaded = median(await rounds('under load'));
    const madeAfter = await made();

    const ratio = loaded / idle;
    console.log(`fair-share benchmark: median of ${ROUNDS} rounds after one warm-up; database ${harness.deps.dbDriver}`);
    console.log(`tenant A posted ${BULKS} bulk sends of ${ITEMS}: answered ${statuses.join(', ')}`);
    console.log(`tenant A's items made while B was measured: ${madeAfter - madeBefore} (of ${bulkIds.length * ITEMS})`);
    console.log(`tenant B create + L2 apply, idle:                ${ms(idle)}`);
    console.log(`tenant B create + L2 apply, under A's bulk load: ${ms(loaded)}  (${ratio.toFixed(2)}x idle)`);
    summarize({
      path: `tenant B's create + L2 apply while tenant A runs ${BULKS} bulk sends of ${ITEMS}`,
      measured: ms(loaded),
      reference: `the same, idle: ${ms(idle)}`,
      ratio: `${ratio.toFixed(2)}x`,
      goal: '≤ 2x',
    });
  } finally {
    // A's bulks end here: the benchmark does not wait for their documents.
    for (const id of bulkIds)
      await harness.deps.temporal.client.workflow
        .getHandle(bulkWorkflowId(id))
        .terminate('benchmark over')
        .catch(() => undefined);
    await harness.close();
    await smtp.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

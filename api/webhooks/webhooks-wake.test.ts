// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeEvent } from '../../activities/events/outbox';
import { NOTICES_APPLICATION } from '../../db/notices';
import { waitFor } from '../../test/cli';
import { account, emit, receiver, register, stack, useWebhookStack } from '../../test/fixtures/webhooks';
import { testDbDriver } from '../../test/stack';

/** The relay's poll here: far longer than a delivery woken by its commit takes. */
const POLL_MS = 10_000;
/** A delivery woken by its commit arrives within this (a poll would take up to POLL_MS). */
const WOKEN_WITHIN_MS = 3_000;

/** Commits an event and answers how long it took to reach `target`; fails past `boundMs`. */
async function deliveredWithin(target: Awaited<ReturnType<typeof receiver>>, commit: () => Promise<string>, boundMs: number) {
  const id = await commit();
  const committedAt = Date.now();
  await waitFor(`event ${id} to arrive within ${boundMs} ms`, () => target.ofEvent(id).length > 0, boundMs, 20);
  return target.ofEvent(id)[0].at - committedAt;
}

/** The listening connections of this database's processes (PostgreSQL). */
async function listeners(): Promise<number[]> {
  const { rows } = await stack.deps.db.raw('select pid from pg_stat_activity where application_name = ? and datname = current_database()', [
    NOTICES_APPLICATION,
  ]);
  return rows.map((row: { pid: number }) => row.pid);
}

describe('the outbox relay woken by commits', () => {
  useWebhookStack({ SVC_OUTBOX_POLL_MS: String(POLL_MS) });

  it('delivers an event committed while the relay rests long before its poll would look', async () => {
    const target = await receiver();
    await register(target.url);
    // The first may wait for the relay's first look; the relay rests once it has delivered it.
    await deliveredWithin(target, () => emit('document.signed', { n: 1 }), POLL_MS + 5_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let n = 2; n <= 4; n += 1) {
      const ms = await deliveredWithin(target, () => emit('document.signed', { n }), WOKEN_WITHIN_MS);
      assert.ok(ms < WOKEN_WITHIN_MS, `${ms} ms`);
    }
  });

  it('delivers an event whose notice was lost at the next poll', async () => {
    const target = await receiver();
    await register(target.url);
    // Triggers do not fire for a replica's session: the commit announces nothing.
    const unannounced = () =>
      stack.deps.db.transaction(async (trx) => {
        await trx.raw('set local session_replication_role = replica');
        return (await writeEvent(trx, account.tenantId, 'document.signed', { notice: 'lost' })).id;
      });
    await deliveredWithin(target, unannounced, POLL_MS + 5_000);
  });

  it('listens again after its connection was killed, on one connection per process', { skip: testDbDriver() === 'pglite' }, async () => {
    const target = await receiver();
    await register(target.url);
    await deliveredWithin(target, () => emit('document.signed', { before: 'kill' }), WOKEN_WITHIN_MS);
    const [killed, ...others] = await listeners();
    assert.deepEqual(others, [], 'the key cache and the relay listen on one connection');
    await stack.deps.db.raw('select pg_terminate_backend(?)', [killed]);
    // Committed while nobody listens: told by the poll, or by the relay looking once it listens again.
    await deliveredWithin(target, () => emit('document.signed', { during: 'kill' }), POLL_MS + 5_000);
    await waitFor('a listening connection again', async () => (await listeners()).some((pid) => pid !== killed), 10_000, 50);
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let n = 0; n < 3; n += 1) {
      const ms = await deliveredWithin(target, () => emit('document.signed', { after: 'kill', n }), WOKEN_WITHIN_MS);
      assert.ok(ms < WOKEN_WITHIN_MS, `${ms} ms`);
    }
  });
});

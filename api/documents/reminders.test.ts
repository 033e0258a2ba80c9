// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDocument } from '../../test/documents';
import { assertErrorCode, call } from '../../test/http';
import { inSeconds, lifecycleWorld, unique } from '../../test/lifecycle';
import { waitFor } from '../../test/wait';

/** A sent document's waits: its expiry and reminder schedule as created, the reminders on schedule, and remind now (its ending: lifecycle.test.ts). */
describe('a sent document’s reminders and expiry schedule', () => {
  const world = lifecycleWorld();

  describe('creating with expires_at and reminders', () => {
    it('stores and shows them, and refuses a past expires_at or a duration out of bounds (400, the field named)', async () => {
      const signers = [unique('Vera Valid'), unique('Walt Valid')];
      const expiresAt = inSeconds(3600);
      const made = await createDocument(world.stack, world.alice, {
        template_id: world.nda.id,
        name: 'With waits',
        signers,
        expires_at: expiresAt,
        reminders: { first_after: 'P1D', every: 'PT12H', max: 3 },
      });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.expires_at, expiresAt);
      assert.deepEqual(made.body.reminders, { first_after: 'P1D', every: 'PT12H', max: 3 });
      const read = await call(world.stack.url, 'GET', `/v1/documents/${made.body.document_id}`, { key: world.alice.key });
      assert.equal(read.body.expires_at, expiresAt);
      assert.deepEqual(read.body.reminders, { first_after: 'P1D', every: 'PT12H', max: 3 });
      const defaults = await createDocument(world.stack, world.alice, {
        template_id: world.nda.id,
        name: 'Defaults',
        signers,
        reminders: { first_after: 'PT2S' },
      });
      assert.deepEqual(defaults.body.reminders, { first_after: 'PT2S', every: 'PT2S', max: 1 });
      assert.equal(defaults.body.expires_at, null);

      const refused = async (body: Record<string, unknown>, path: string) => {
        const reply = await createDocument(world.stack, world.alice, { template_id: world.nda.id, name: 'Refused', signers, ...body });
        assertErrorCode(reply, 400, 'invalid_request');
        assert.ok(
          reply.body.error.details.some((detail: { path: string }) => detail.path.endsWith(path)),
          `${path} named in ${reply.text}`,
        );
      };
      await refused({ expires_at: inSeconds(-60) }, 'expires_at');
      await refused({ expires_at: 'tomorrow' }, 'expires_at');
      await refused({ expires_at: inSeconds(0.2) }, 'expires_at');
      await refused({ expires_at: inSeconds(400 * 24 * 3600) }, 'expires_at');
      await refused({ reminders: { first_after: 'P1M' } }, 'reminders.first_after');
      await refused({ reminders: { first_after: 'PT0.5S' } }, 'reminders.first_after');
      await refused({ reminders: { first_after: 'PT1S', every: 'soon' } }, 'reminders.every');
      await refused({ reminders: { first_after: 'PT1S', max: 0 } }, 'reminders.max');
      await refused({ reminders: { first_after: 'PT1S', often: true } }, 'reminders.often');
    });
  });

  describe('reminders on schedule', () => {
    it('re-mails only the signer whose turn it is under strict order, round by round, and stops at max', async () => {
      const [first, second] = [unique('Fay First'), unique('Sid Second')];
      const created = await createDocument(world.stack, world.alice, {
        template_id: world.nda.id,
        name: 'Reminded NDA',
        signers: [first, second],
        send: true,
        strict_order: true,
        reminders: { first_after: 'PT1S', every: 'PT1S', max: 2 },
      });
      assert.equal(created.status, 201, created.text);
      const id = created.body.document_id;
      const events = await world.delivered('document.reminded', (data) => data.document_id === id, 2);
      assert.deepEqual(
        events.map((event) => [event.data.signer.email, event.data.trigger, event.data.round]),
        [
          [first.email, 'schedule', 1],
          [first.email, 'schedule', 2],
        ],
      );
      const reminders = await waitFor('two reminder mails', () =>
        world.seen(first.email, 'sign-reminder').length >= 2 ? world.seen(first.email, 'sign-reminder') : undefined,
      );
      assert.match(reminders[0].text, new RegExp(new URL(created.body.signers[0].sign_url).pathname));
      // Two more intervals pass: max is 2, and the second signer's turn has not come.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal(world.seen(first.email, 'sign-reminder').length, 2);
      assert.equal(world.seen(second.email, 'sign-reminder').length, 0);
      assert.equal(world.seen(second.email, 'sign-invite').length, 0);
      const lines = await world.auditOf(id, 'document.reminded');
      assert.deepEqual(
        lines.map((line) => [line.actor_type, (line.data as any).round]),
        [
          ['system', 1],
          ['system', 2],
        ],
      );
    });
  });

  describe('remind now', () => {
    it('mails every pending signer at once, then answers 429 rate_limited with Retry-After while they were reminded too recently', async () => {
      const signers = [unique('Rita Remind'), unique('Ravi Remind')];
      const created = await createDocument(world.stack, world.alice, { template_id: world.nda.id, name: 'Remind me', signers, send: true });
      const id = created.body.document_id;
      assertErrorCode(await call(world.stack.url, 'POST', `/v1/documents/${id}/remind`), 401, 'unauthorized');
      assertErrorCode(await call(world.stack.url, 'POST', `/v1/documents/${id}/remind`, { key: world.stranger.key }), 404, 'not_found');
      const reminded = await call(world.stack.url, 'POST', `/v1/documents/${id}/remind`, { key: world.alice.key });
      assert.equal(reminded.status, 200, reminded.text);
      assert.deepEqual(
        reminded.body.reminded.map((signer: { email: string }) => signer.email),
        signers.map((signer) => signer.email),
      );
      for (const signer of signers)
        await waitFor(`the reminder to ${signer.email}`, () => world.stack.smtp!.latest(signer.email, 'sign-reminder'));
      const events = await world.delivered('document.reminded', (data) => data.document_id === id, 2);
      assert.ok(events.every((event) => event.data.trigger === 'remind' && event.data.round === null));
      const [line] = await world.auditOf(id, 'document.reminded');
      assert.equal(line.actor_type, 'agent');
      assert.equal(line.actor_id, world.alice.keyId);

      const again = await call(world.stack.url, 'POST', `/v1/documents/${id}/remind`, { key: world.alice.key });
      assertErrorCode(again, 429, 'rate_limited');
      const retryAfter = Number(again.headers.get('retry-after'));
      assert.ok(retryAfter > 50 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(world.seen(signers[0].email, 'sign-reminder').length, 1, 'nobody was mailed twice');

      const draft = await createDocument(world.stack, world.alice, { template_id: world.nda.id, name: 'Draft', signers });
      assertErrorCode(
        await call(world.stack.url, 'POST', `/v1/documents/${draft.body.document_id}/remind`, { key: world.alice.key }),
        409,
        'invalid_state',
      );
    });
  });
});

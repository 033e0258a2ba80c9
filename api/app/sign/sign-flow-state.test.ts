// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTemplate } from '../../../activities/templates/templates';
import { buildSampleNda } from '../../../lib/pdf/samples';
import { createDocument, SignerSession } from '../../../test/documents';
import { owner, sentNda, signature, stack, titleId, useSignFlowStack } from '../../../test/fixtures/sign-flow';

describe('signing at a sign link', () => {
  useSignFlowStack();

  describe('the signer’s state', () => {
    const utcDate = () => new Date().toISOString().slice(0, 10);
    const fieldsOf = (state: { widgets: Array<Record<string, unknown>> }) =>
      Object.fromEntries(
        state.widgets.map((w) => [w.id, { mine: w.mine, auto_filled: w.auto_filled, text: w.text, unfilled: w.unfilled }]),
      );

    it('says what the service stamps on the signer’s widgets and which ones the signer must still fill', async () => {
      const { second } = await sentNda();
      await second.verify();
      const before = utcDate();
      const state = await second.request('GET', '/state');
      const after = utcDate();
      assert.equal(state.status, 200, state.text);
      assert.equal(state.body.can_sign, true);
      assert.equal(state.body.blocked_reason, null);
      assert.equal(state.body.signer.initials, 'BB');
      const date = state.body.widgets.find((w: { id: string }) => w.id === 'receiving-date').text;
      assert.ok(date === before || date === after, date);
      const theirs = (id: string) => ({ [id]: { mine: false, auto_filled: !/title|copy|term/.test(id), text: null, unfilled: false } });
      assert.deepEqual(fieldsOf(state.body), {
        ...theirs('disclosing-signature'),
        ...theirs('disclosing-name'),
        ...theirs('disclosing-date'),
        'receiving-signature': { mine: true, auto_filled: true, text: null, unfilled: false },
        'receiving-name': { mine: true, auto_filled: true, text: 'Bob Baker', unfilled: false },
        [titleId]: { mine: true, auto_filled: false, text: null, unfilled: true },
        'receiving-date': { mine: true, auto_filled: true, text: date, unfilled: false },
        'receiving-copy': { mine: true, auto_filled: false, text: null, unfilled: false },
        'receiving-term': { mine: true, auto_filled: false, text: null, unfilled: false },
      });
    });

    it('gives the initials’ letters and the e-mail as stamped', async () => {
      const sample = await buildSampleNda();
      const initialled = await createTemplate(stack.deps, {
        tenantId: owner.tenantId,
        pdf: sample.pdf,
        definition: {
          name: 'Initialled',
          roles: ['Party'],
          widgets: [
            { id: 'sig', type: 'signature', role: 'Party', page: 1, x: 50, y: 600, width: 200, height: 40 },
            { id: 'ini', type: 'initials', role: 'Party', page: 1, x: 300, y: 600, width: 40, height: 20 },
            { id: 'mail', type: 'email', role: 'Party', page: 1, x: 50, y: 650, width: 200, height: 20 },
            { id: 'agree', type: 'checkbox', role: 'Party', page: 1, x: 300, y: 650, width: 12, height: 12, required: true },
          ],
        },
        createdBy: 'test',
      });
      const email = `zoe-${Date.now()}@example.test`;
      const created = await createDocument(stack, owner, {
        template_id: initialled.id,
        name: 'Initialled',
        signers: [{ name: 'zoë  van šimůnek', email }],
        send: true,
      });
      assert.equal(created.status, 201, created.text);
      const party = await new SignerSession(stack, created.body.signers[0].sign_url, email).verify();
      const state = (await party.request('GET', '/state')).body;
      assert.equal(state.signer.initials, 'ZVŠ');
      const fields = fieldsOf(state);
      assert.deepEqual(fields.ini, { mine: true, auto_filled: true, text: 'ZVŠ', unfilled: false });
      assert.deepEqual(fields.mail, { mine: true, auto_filled: true, text: email, unfilled: false });
      assert.deepEqual(fields.agree, { mine: true, auto_filled: false, text: null, unfilled: true });
    });

    it('under strict order, lets the next signer sign once the earlier one has', async () => {
      const { first, second } = await sentNda({ strict: true });
      await Promise.all([first.verify(), second.verify()]);
      assert.equal((await first.request('GET', '/state')).body.can_sign, true);
      const waiting = (await second.request('GET', '/state')).body;
      assert.deepEqual([waiting.can_sign, waiting.blocked_reason], [false, 'Waiting for Ann Able to sign first.']);
      assert.equal((await first.request('POST', '/sign', { consent: true, signature, values: {} })).status, 200);
      const done = (await first.request('GET', '/state')).body;
      assert.deepEqual([done.can_sign, done.blocked_reason, done.signer.status], [false, null, 'signed']);
      const turn = (await second.request('GET', '/state')).body;
      assert.deepEqual([turn.can_sign, turn.blocked_reason], [true, null]);
    });
  });
});

// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTemplate } from '../../../activities/templates/templates';
import { Event } from '../../../db/models';
import { buildSampleNda } from '../../../lib/pdf/samples';
import { createDocument, SignerSession } from '../../../test/documents';
import { documentOf, owner, sentNda, signature, stack, titleId, useSignFlowStack, waitForStatus } from '../../../test/fixtures/sign-flow';
import { assertErrorCode } from '../../../test/http';
import { dataUrl, signaturePng } from '../../../test/images';

describe('signing at a sign link', () => {
  useSignFlowStack();

  describe('the apply procedure’s refusals', () => {
    it('a double click: two simultaneous submissions by one signer make one apply', async () => {
      const { id, first } = await sentNda();
      await first.verify();
      const replies = await Promise.all([0, 1, 2].map(() => first.request('POST', '/sign', { consent: true, signature, values: {} })));
      for (const reply of replies)
        assert.ok(reply.status === 200 || (reply.status === 409 && reply.body.error.code === 'already_signed'), reply.text);
      assert.ok(replies.some((reply) => reply.status === 200));
      const applies = await stack.deps.db('applies').where({ document_id: id });
      assert.equal(applies.length, 1, 'one apply row');
      assert.equal(applies[0].status, 'applied');
      const signed = await Event.query(stack.deps.db).where({ event: 'document.signed' }).whereRaw(`data->>'document_id' = ?`, [id]);
      assert.equal(signed.length, 1);
    });

    it('strict_order: a later signer cannot sign before an earlier one', async () => {
      const { id, first, second } = await sentNda({ strict: true });
      await second.verify();
      const state = await second.request('GET', '/state');
      assert.equal(state.body.can_sign, false);
      assert.match(state.body.blocked_reason, /Ann Able/);
      assertErrorCode(
        await second.request('POST', '/sign', { consent: true, signature, values: { [titleId]: 'CTO' } }),
        409,
        'strict_order',
      );
      await first.verify();
      assert.equal((await first.request('POST', '/sign', { consent: true, signature, values: {} })).status, 200);
      const signed = await second.request('POST', '/sign', { consent: true, signature, values: { [titleId]: 'CTO' } });
      assert.equal(signed.status, 200, signed.text);
      await waitForStatus(id, 'completed');
    });

    it('unfilled_fields: a required text the appearance cannot fill blocks the apply, naming it', async () => {
      const { second } = await sentNda();
      await second.verify();
      const reply = await second.request('POST', '/sign', { consent: true, signature, values: {} });
      assertErrorCode(reply, 422, 'unfilled_fields');
      assert.deepEqual(
        reply.body.error.details.map((d: { path: string }) => d.path),
        [`values.${titleId}`],
      );
    });

    it('already_signed: a second signature by the same signer is refused', async () => {
      const { first } = await sentNda();
      await first.verify();
      assert.equal((await first.request('POST', '/sign', { consent: true, signature, values: {} })).status, 200);
      assertErrorCode(await first.request('POST', '/sign', { consent: true, signature, values: {} }), 409, 'already_signed');
    });

    it('missing_signature_fields: a role without a signature widget cannot sign', async () => {
      const sample = await buildSampleNda();
      const witness = await createTemplate(stack.deps, {
        tenantId: owner.tenantId,
        pdf: sample.pdf,
        definition: {
          name: 'Witnessed',
          roles: ['Party', 'Witness'],
          widgets: [
            { id: 'party-signature', type: 'signature', role: 'Party', page: 1, x: 50, y: 600, width: 200, height: 40 },
            { id: 'witness-name', type: 'name', role: 'Witness', page: 1, x: 300, y: 600, width: 200, height: 20 },
          ],
        },
        createdBy: 'test',
      });
      const created = await createDocument(stack, owner, {
        template_id: witness.id,
        name: 'Witnessed',
        signers: [
          { name: 'P', email: 'p@example.test' },
          { name: 'W', email: 'w@example.test' },
        ],
        send: true,
      });
      const witnessSession = await new SignerSession(stack, created.body.signers[1].sign_url, 'w@example.test').verify();
      assertErrorCode(
        await witnessSession.request('POST', '/sign', { consent: true, signature, values: {} }),
        422,
        'missing_signature_fields',
      );
    });

    it('cross_origin: another site’s page cannot decline, sign or ask for codes with the signer’s cookie; an empty decline declines nothing', async () => {
      const { id, first } = await sentNda();
      await first.verify();
      const post = (suffix: string, headers: Record<string, string>, body = '{"reason":"forged"}') =>
        fetch(`${stack.url}${first.path}${suffix}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie: first.cookie, ...headers },
          body,
        });
      const foreign: Record<string, string>[] = [
        { origin: 'https://evil.example' },
        // A sibling subdomain is same-site: SameSite=Lax sends the cookie, Sec-Fetch-Site tells it apart.
        { origin: 'https://pages.example.test', 'sec-fetch-site': 'same-site' },
        { 'sec-fetch-site': 'cross-site' },
      ];
      for (const headers of foreign) {
        for (const suffix of ['/decline', '/sign', '/code', '/verify']) {
          const refused = await post(suffix, headers);
          assert.equal(refused.status, 403, `${suffix} ${JSON.stringify(headers)}`);
          assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'cross_origin');
        }
      }
      const empty = await post('/decline', {}, '');
      assert.equal(empty.status, 400);
      assert.equal((await documentOf(id)).status, 'sent', 'nothing was declined');
      // The page's own post (same origin) goes through.
      const own = await post('/decline', { origin: new URL(stack.config.appUrl).origin, 'sec-fetch-site': 'same-origin' }, '{}');
      assert.equal(own.status, 200);
      assert.equal((await documentOf(id)).status, 'declined');
    });

    it('invalid_state: nobody can sign a declined document', async () => {
      const { id, first, second } = await sentNda();
      await first.verify();
      const declined = await first.request('POST', '/decline', { reason: 'Wrong counterparty' });
      assert.equal(declined.status, 200, declined.text);
      assert.equal((await documentOf(id)).status, 'declined');
      await second.verify();
      assertErrorCode(
        await second.request('POST', '/sign', { consent: true, signature, values: { [titleId]: 'CTO' } }),
        409,
        'invalid_state',
      );
      const event = await Event.query(stack.deps.db)
        .where({ event: 'document.declined' })
        .whereRaw(`data->>'document_id' = ?`, [id])
        .first();
      assert.equal((event?.data as { reason: string } | undefined)?.reason, 'Wrong counterparty');
    });

    it('refuses values for fields that are not the signer’s, a bad image and no consent', async () => {
      const { first } = await sentNda();
      await first.verify();
      const foreign = await first.request('POST', '/sign', { consent: true, signature, values: { [titleId]: 'CTO' } });
      assertErrorCode(foreign, 400, 'invalid_request');
      assert.equal(foreign.body.error.details[0].path, `values.${titleId}`);
      assertErrorCode(
        await first.request('POST', '/sign', {
          consent: true,
          signature: { method: 'drawn', image: 'data:image/gif;base64,R0lGOD' },
          values: {},
        }),
        400,
        'invalid_request',
      );
      const corrupt = dataUrl(signaturePng().subarray(0, 60));
      assertErrorCode(
        await first.request('POST', '/sign', { consent: true, signature: { method: 'uploaded', image: corrupt }, values: {} }),
        422,
        'missing_appearance',
      );
      assertErrorCode(await first.request('POST', '/sign', { consent: false, signature, values: {} }), 400, 'invalid_request');
    });

    it('refuses a body of many thousand values or fields at once, naming at most 20 of them', async () => {
      const { first } = await sentNda();
      await first.verify();
      const many = (count: number, prefix: string) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, 'x']));
      // 150,000 values (about 3 MB) for a signer with a few fields: refused whole, nothing echoed.
      const values = await first.request('POST', '/sign', { consent: true, signature, values: many(150_000, 'w') });
      assertErrorCode(values, 400, 'invalid_request');
      assert.deepEqual(
        values.body.error.details.map((detail: { path: string }) => detail.path),
        ['values'],
      );
      assert.match(values.body.error.message, /Too many field values: 150000 given/);
      assert.ok(JSON.stringify(values.body).length < 2000, `the refusal is short, not ${JSON.stringify(values.body).length} characters`);
      // 100,000 unknown fields: 20 named, the rest counted.
      const fields = await first.request('POST', '/sign', { consent: true, signature, values: {}, ...many(100_000, 'f') });
      assertErrorCode(fields, 400, 'invalid_request');
      const details = fields.body.error.details as { path: string; message: string }[];
      assert.equal(details.length, 21);
      assert.deepEqual(details[0], { path: 'f0', message: 'Unknown field' });
      assert.deepEqual(details[20], { path: '', message: 'and 99980 more' });
      assert.ok(JSON.stringify(fields.body).length < 4000, `the refusal is short, not ${JSON.stringify(fields.body).length} characters`);
      // Nothing was signed: the signer can still sign.
      assert.equal((await first.request('POST', '/sign', { consent: true, signature, values: {} })).status, 200);
    });
  });
});

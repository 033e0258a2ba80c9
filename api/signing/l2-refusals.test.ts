// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { revokeMandate } from '../../activities/mandates/mandates';
import { Apply, Mandate, Template } from '../../db/models';
import { newId } from '../../lib/ids';
import { createDocument, seedSamples } from '../../test/documents';
import { agent, inboundNda, owner, sign, stack, templates, useL2Stack } from '../../test/fixtures/signing-l2';
import { assertErrorCode, call } from '../../test/http';
import { principalOf } from '../../test/principal';

describe('L2: POST /v1/documents/:id/sign', () => {
  useL2Stack();

  describe('refusals, each with its code', () => {
    it('mandate_required: a key without a mandate', async () => {
      const { account } = await agent({ level: null });
      assertErrorCode(await sign(account, (await inboundNda(account)).document_id), 403, 'mandate_required');
    });

    it('mandate_inactive: a revoked or expired mandate', async () => {
      const { account, mandate } = await agent();
      const document = await inboundNda(account);
      await revokeMandate(stack.deps.db, await principalOf(stack, account), mandate!.id, { type: 'principal', id: account.principalId });
      assertErrorCode(await sign(account, document.document_id), 403, 'mandate_inactive');

      const expiring = await agent();
      await Mandate.query(stack.deps.db)
        .findById(expiring.mandate!.id)
        .patch({ expires_at: new Date(Date.now() - 1000) });
      assertErrorCode(await sign(expiring.account, (await inboundNda(expiring.account)).document_id), 403, 'mandate_inactive');
      const me = await call(stack.url, 'GET', '/v1/me', { key: expiring.account.key });
      assert.equal(me.body.signing_mandate, undefined);
      assert.deepEqual(me.body.allowed_confirmation_levels, []);
    });

    it('confirmation_required: an L1 key', async () => {
      const { account } = await agent({ level: 'L1' });
      assertErrorCode(await sign(account, (await inboundNda(account)).document_id), 403, 'confirmation_required');
    });

    it('feature_disabled: l2_signing off', async () => {
      const { account } = await agent();
      const document = await inboundNda(account);
      const api = await stack.withEnv({ SVC_FF_L2_SIGNING: 'false' });
      try {
        assertErrorCode(
          await call(api.url, 'POST', `/v1/documents/${document.document_id}/sign`, { key: account.key, body: { reason: 'x' } }),
          403,
          'feature_disabled',
        );
      } finally {
        await api.close();
      }
    });

    it('principal_not_signer: a document of the account where the principal does not sign', async () => {
      const { account } = await agent();
      const template = (await seedSamples(stack, account)).nda;
      const created = await createDocument(stack, account, {
        template_id: template.id,
        name: 'Others sign',
        signers: [
          { name: 'A', email: 'a1@example.test' },
          { name: 'B', email: 'b1@example.test' },
        ],
        send: true,
      });
      assertErrorCode(await sign(account, created.body.document_id), 403, 'principal_not_signer');
    });

    it('mandate_scope: an outbound-only mandate and an inbound document', async () => {
      const { account } = await agent({ mode: 'outbound' });
      assertErrorCode(await sign(account, (await inboundNda(account)).document_id), 403, 'mandate_scope');
    });

    it('missing_appearance: no stored signature', async () => {
      const { account } = await agent({ appearance: false });
      assertErrorCode(await sign(account, (await inboundNda(account)).document_id), 422, 'missing_appearance');
    });

    it('unfilled_fields: a required text the appearance cannot fill', async () => {
      const { account } = await agent();
      const reply = await sign(account, (await inboundNda(account, { position: 1 })).document_id);
      assertErrorCode(reply, 422, 'unfilled_fields');
    });

    it('missing_signature_fields: the principal’s role has no signature widget', async () => {
      const { account } = await agent();
      const principal = await principalOf(stack, account);
      const witness = await Template.query(stack.deps.db).insertAndFetch({
        ...templates.nda,
        id: newId('tpl'),
        roles: ['Party', 'Witness'],
        widgets: [
          { id: 'p-sig', type: 'signature', role: 'Party', page: 1, x: 50, y: 600, width: 200, height: 40, required: true },
          { id: 'w-name', type: 'name', role: 'Witness', page: 1, x: 300, y: 600, width: 200, height: 20, required: true },
        ],
      } as Partial<Template>);
      const created = await createDocument(stack, owner, {
        template_id: witness.id,
        name: 'Witnessed',
        signers: [
          { name: 'P', email: 'p2@example.test' },
          { name: principal.name, email: principal.email },
        ],
        send: true,
      });
      assertErrorCode(await sign(account, created.body.document_id), 422, 'missing_signature_fields');
    });

    it('already_signed: a second apply', async () => {
      const { account } = await agent();
      const document = await inboundNda(account);
      assert.equal((await sign(account, document.document_id)).status, 200);
      assertErrorCode(await sign(account, document.document_id), 409, 'already_signed');
    });

    it('strict_order: an earlier signer has not signed', async () => {
      const { account } = await agent();
      assertErrorCode(await sign(account, (await inboundNda(account, { position: 1, strict: true })).document_id), 409, 'strict_order');
    });

    it('invalid_state: a draft', async () => {
      const { account } = await agent();
      const principal = await principalOf(stack, account);
      const template = (await seedSamples(stack, account)).nda;
      const draft = await createDocument(stack, account, {
        template_id: template.id,
        name: 'Draft',
        signers: [
          { name: principal.name, email: principal.email },
          { name: 'B', email: 'b3@example.test' },
        ],
      });
      assertErrorCode(await sign(account, draft.body.document_id), 409, 'invalid_state');
    });

    it('sign_failed: the stamp cannot be drawn (a stored template widget off its PDF)', async () => {
      const { account } = await agent();
      const principal = await principalOf(stack, account);
      const broken = await Template.query(stack.deps.db).insertAndFetch({
        ...templates.nda,
        id: newId('tpl'),
        roles: ['Party'],
        widgets: [{ id: 'far', type: 'signature', role: 'Party', page: 7, x: 10, y: 10, width: 100, height: 30, required: true }],
      } as Partial<Template>);
      const created = await createDocument(stack, owner, {
        template_id: broken.id,
        name: 'Broken',
        signers: [{ name: principal.name, email: principal.email }],
        send: true,
      });
      const reply = await sign(account, created.body.document_id);
      assertErrorCode(reply, 502, 'sign_failed');
      const apply = await Apply.query(stack.deps.db).where({ document_id: created.body.document_id }).first();
      assert.equal(apply?.status, 'rejected');
      const usage = await stack.deps
        .db('mandate_daily_usage')
        .whereIn(
          'mandate_id',
          (await Mandate.query(stack.deps.db).where({ api_key_id: account.keyId })).map((m) => m.id),
        )
        .first();
      assert.equal(Number(usage?.count ?? 0), 0, 'a refused apply gives its daily slot back');
    });

    it('404: a document of another tenant where the principal does not sign', async () => {
      const { account } = await agent();
      const created = await createDocument(stack, owner, {
        template_id: templates.nda.id,
        name: 'Not yours',
        signers: [
          { name: 'A', email: 'a4@example.test' },
          { name: 'B', email: 'b4@example.test' },
        ],
        send: true,
      });
      assertErrorCode(await sign(account, created.body.document_id), 404, 'not_found');
      assertErrorCode(
        await call(stack.url, 'POST', '/v1/documents/doc_nonexistent/sign', { key: account.key, body: { reason: 'x' } }),
        404,
        'not_found',
      );
    });

    it('400: a missing reason', async () => {
      const { account } = await agent();
      const reply = await call(stack.url, 'POST', `/v1/documents/${(await inboundNda(account)).document_id}/sign`, {
        key: account.key,
        body: {},
      });
      assertErrorCode(reply, 400, 'invalid_request');
      assert.equal(reply.body.error.details[0].path, 'reason');
    });
  });
});

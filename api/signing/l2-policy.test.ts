// ALSO_ON_PGLITE: npm test runs this file again on embedded PGlite, as `npm start` runs (test/run.ts).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { createLocalJWKSet, decodeJwt, type JSONWebKeySet, jwtVerify } from 'jose';
import { revokeMandate } from '../../activities/mandates/mandates';
import { Document, Mandate, type MandatePolicy, SignRequest } from '../../db/models';
import { connect } from '../../test/contacts';
import { downloadPdf, latestMail, SignerSession, seedSamples, sentNda, waitForDocument } from '../../test/documents';
import type { Account } from '../../test/factories';
import { agent, inboundNda, owner, sign, stack, templates, useL2Stack } from '../../test/fixtures/signing-l2';
import { call } from '../../test/http';
import { pdfAttachments, pdfsig } from '../../test/pdf-tools';
import { grantMandate, principalOf } from '../../test/principal';
import { waitFor } from '../../test/wait';

// Issue 40, item 2: a mandate's policy, checked with every L2 apply by it in the apply's transaction.
// Each constraint lets the apply inside it through and refuses the one outside it with 403
// mandate_scope naming the constraint; an offer outside it escalates to L1 with the constraint in the
// sign request's reason. The inbound NDA's other parties are its sender (Olivia, @example.test) and
// a counterparty signer (Carl, @example.test unless given).

const withPolicy = (policy: MandatePolicy) => agent({ policy });

async function refusedFor(account: Account, documentId: string, constraint: string): Promise<string> {
  const reply = await sign(account, documentId);
  assert.equal(reply.status, 403, reply.text);
  assert.equal(reply.body.error.code, 'mandate_scope');
  assert.deepEqual(
    reply.body.error.details.map((detail: { path: string }) => detail.path),
    [`policy.${constraint}`],
  );
  assert.match(reply.body.error.message, new RegExp(`\\(${constraint}\\)`));
  return reply.body.error.details[0].message;
}

const signed = async (account: Account, documentId: string) => {
  const reply = await sign(account, documentId);
  assert.equal(reply.status, 200, reply.text);
  return reply.body;
};

describe('a mandate’s policy, checked with every L2 apply by it', () => {
  useL2Stack();

  it('counterparties: e-mail addresses and domains; a party outside them refuses the apply, naming them', async () => {
    const { account } = await withPolicy({ counterparties: ['@Example.test'] });
    await signed(account, (await inboundNda(account)).document_id);
    const outside = await inboundNda(account, { other: { name: 'Eve Elsewhere', email: 'eve@elsewhere.test' } });
    assert.match(await refusedFor(account, outside.document_id, 'counterparties'), /eve@elsewhere\.test/);
    const { account: exact } = await withPolicy({ counterparties: ['eve@elsewhere.test', owner.email] });
    await signed(exact, (await inboundNda(exact, { other: { name: 'Eve', email: 'eve@elsewhere.test' } })).document_id);
  });

  it('documents: templates or exact hashes', async () => {
    const { account: byTemplate } = await withPolicy({ templates: [templates.nda.id] });
    await signed(byTemplate, (await inboundNda(byTemplate)).document_id);
    const { account: elsewhere } = await withPolicy({ templates: ['tpl_someotherone'] });
    await refusedFor(elsewhere, (await inboundNda(elsewhere)).document_id, 'documents');

    // An exact hash: the document is sent first, and the mandate granted for it.
    const { account: hashed } = await agent({ level: null });
    const known = await inboundNda(hashed);
    const hash = (await Document.query(stack.deps.db).findById(known.document_id))!.current_sha256;
    await grantMandate(stack, hashed, { level: 'L2', policy: { templates: ['tpl_someotherone'], document_hashes: [hash] } });
    await refusedFor(hashed, (await inboundNda(hashed)).document_id, 'documents');
    await signed(hashed, known.document_id);
  });

  it('daily_cap: under the service’s 25, counted with the day’s slots', async () => {
    const { account } = await withPolicy({ daily_cap: 1 });
    await signed(account, (await inboundNda(account)).document_id);
    assert.match(await refusedFor(account, (await inboundNda(account)).document_id, 'daily_cap'), /one L2 signature a UTC day/);
    const mandates = await call(stack.url, 'GET', '/v1/mandates', { key: account.key });
    assert.deepEqual([mandates.body.data[0].daily_l2_cap, mandates.body.data[0].l2_applies_today], [1, 1]);
  });

  it('per_counterparty: at most max with any one counterparty in the period', async () => {
    const { account } = await withPolicy({ per_counterparty: { max: 1, period: 'week' } });
    const carl = { name: 'Carl', email: `carl-${Date.now()}@example.test` };
    const first = await inboundNda(account, { other: carl });
    await signed(account, first.document_id);
    // A retry of the same apply is no second signature.
    assert.equal((await sign(account, first.document_id)).body.error?.code, 'already_signed');
    // Olivia (the sender of both) is a counterparty of the second as well.
    assert.match(await refusedFor(account, (await inboundNda(account, { other: carl })).document_id, 'per_counterparty'), /once/);
  });

  it('hours: only between from and to in the time zone, across midnight too', async () => {
    const hour = (offset: number) => `${String((new Date().getUTCHours() + offset + 24) % 24).padStart(2, '0')}:00`;
    const { account: inside } = await withPolicy({ hours: { from: hour(-1), to: hour(2), time_zone: 'UTC' } });
    await signed(inside, (await inboundNda(inside)).document_id);
    const { account: outside } = await withPolicy({ hours: { from: hour(3), to: hour(5), time_zone: 'Etc/UTC' } });
    assert.match(await refusedFor(outside, (await inboundNda(outside)).document_id, 'hours'), /Etc\/UTC/);
  });

  it('is granted as given, shown by GET /v1/mandates/:id and carried in the credential; an invalid one is refused at the grant', async () => {
    const policy = { counterparties: ['acme.com'], daily_cap: 5, per_counterparty: { max: 2, period: 'month' as const } };
    const { account, mandate } = await withPolicy(policy);
    const shown = await call(stack.url, 'GET', `/v1/mandates/${mandate.id}`, { key: account.key });
    assert.deepEqual(shown.body.policy, policy);
    assert.equal(shown.body.daily_l2_cap, 5);
    const claims = decodeJwt(shown.body.credential.split('~')[0]);
    assert.deepEqual(claims.policy, policy);
    assert.deepEqual(claims.limits, { daily_l2_applies: 5 });
    await assert.rejects(
      withPolicy({ daily_cap: 25, counterparties: ['not an address'], hours: { from: '9:00', to: '17:00', time_zone: 'Mars/Base' } }),
      (error: { code?: string; details?: Array<{ path: string }> }) => {
        assert.equal(error.code, 'invalid_request');
        assert.deepEqual(error.details?.map((detail) => detail.path).sort(), [
          'policy.counterparties',
          'policy.daily_cap',
          'policy.hours.from',
          'policy.hours.time_zone',
        ]);
        return true;
      },
    );
  });

  it('the mandate travels with the signature: its credential and this apply’s receipt are inside the signed revision', async () => {
    const policy = { counterparties: ['example.test'], daily_cap: 4 };
    const { account, mandate } = await withPolicy(policy);
    const document = await inboundNda(account);
    const applied = await signed(account, document.document_id);
    const pdf = await downloadPdf(stack, owner.key, document.document_id);
    assert.ok((await pdfsig(pdf)).valid, 'the revision’s seal covers them');
    const files = await pdfAttachments(pdf);
    const credential = files[`mandate-credential-${mandate.id}.sd-jwt`]?.toString();
    assert.equal(credential, (await Mandate.query(stack.deps.db).findById(mandate.id))!.credential_jws);
    const receiptFile = Object.keys(files).find((name) => /^mandate-receipt-apl_\w+\.jws$/.test(name));
    assert.ok(receiptFile, Object.keys(files).join(', '));
    const keys = createLocalJWKSet((await (await fetch(`${stack.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet);
    const { payload: receipt } = await jwtVerify(files[receiptFile].toString(), keys, {
      issuer: stack.config.publicUrl,
      typ: 'mandate-receipt+jwt',
      algorithms: ['ES256'],
    });
    assert.deepEqual(
      [receipt.receipt_type, receipt.document_id, receipt.mandate_id, receipt.pre_sign_hash, receipt.in_policy],
      ['mandate.applied', document.document_id, mandate.id, applied.pre_sign_hash, true],
    );
    assert.deepEqual(receipt.policy, policy);
    assert.deepEqual((receipt.policy_checked as string[]).sort(), ['counterparties', 'daily_cap']);
    const { payload: issued } = await jwtVerify(credential!.split('~')[0], keys, { issuer: stack.config.publicUrl, typ: 'dc+sd-jwt' });
    assert.equal(receipt.credential_sha256, createHash('sha256').update(credential!.split('~')[0]).digest('hex'));
    assert.equal(issued.mandate_id, mandate.id);

    // POST /v1/verify names the mandate, its policy and what this signature kept to; then, revoked, its status now.
    const verifyMandate = async () => {
      const report = await call(stack.url, 'POST', '/v1/verify', { raw: pdf, headers: { 'content-type': 'application/pdf' } });
      assert.equal(report.status, 200, report.text);
      return report.body.signers.find((signer: { mandate_id: string | null }) => signer.mandate_id === mandate.id).mandate;
    };
    const before = await verifyMandate();
    assert.deepEqual(
      [before.policy, before.policy_checked.sort(), before.in_policy, before.status_then, before.status_now],
      [policy, ['counterparties', 'daily_cap'], true, 'active', 'active'],
    );
    const principal = await principalOf(stack, account);
    await revokeMandate(stack.deps.db, principal, mandate.id, { type: 'principal', id: principal.id });
    const after = await verifyMandate();
    assert.deepEqual([after.status_then, after.status_now], ['active', 'revoked']);

    // The counterparty signs in the browser: the completed PDF carries both files on, beside its own receipt.
    const carl = document.signers[1];
    const session = await new SignerSession(stack, carl.sign_url, carl.email).verify();
    assert.equal((await session.sign({ 'receiving-title': 'CFO' })).status, 200);
    await waitForDocument(stack, owner.key, document.document_id, (doc) => doc.status === 'completed', 'the document to complete');
    const completed = await pdfAttachments(await downloadPdf(stack, owner.key, document.document_id));
    assert.deepEqual(
      [
        completed[`mandate-credential-${mandate.id}.sd-jwt`]?.toString(),
        completed[receiptFile]?.toString(),
        Boolean(completed['receipt.jws']),
      ],
      [credential, files[receiptFile].toString(), true],
    );
    await jwtVerify(completed[receiptFile].toString(), keys, { issuer: stack.config.publicUrl, typ: 'mandate-receipt+jwt' });
  });

  it('the L2 notice mail names the limits the apply was checked against', async () => {
    const { account } = await withPolicy({ counterparties: ['example.test'], daily_cap: 3 });
    const principal = await principalOf(stack, account);
    await signed(account, (await inboundNda(account)).document_id);
    const mail = await waitFor('the L2 notice', () => latestMail(stack, principal.email, 'l2-notice'));
    assert.match(mail.text, /checked against your mandate's limits/);
    assert.match(mail.text, /- Only with: example\.test\./);
    assert.match(mail.text, /- At most 3 L2 signatures a UTC day\./);
  });

  it('an offer outside the policy escalates to L1, the constraint in the sign request’s reason', async () => {
    const { account: alice } = await agent({ name: 'Alice Offeror' });
    const { account: bob } = await withPolicy({ counterparties: ['nobody.test'] });
    const { fromContact } = await connect(stack, alice, bob);
    const { nda } = await seedSamples(stack, alice);
    const document = await sentNda(stack, alice, nda, await principalOf(stack, bob), { name: 'Offered NDA' });
    const made = await call(stack.url, 'POST', `/v1/documents/${document.document_id}/offers`, {
      key: alice.key,
      body: { terms: 'Net 30', contact_id: fromContact },
    });
    assert.equal(made.status, 201, made.text);
    const accepted = await call(stack.url, 'POST', `/v1/offers/${made.body.offer_id}/accept`, { key: bob.key });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.status, 'escalated');
    const request = await SignRequest.query(stack.deps.db).findOne({ offer_id: made.body.offer_id });
    assert.match(request!.reason, /outside the mandate's policy \(counterparties\)/);
  });
});

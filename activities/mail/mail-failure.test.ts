import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuditEvent, MailMessage, type Principal, type Template } from '../../db/models';
import { createLogger } from '../../lib/log';
import { createMailer, MailRefused } from '../../lib/mail';
import { createDocument, latestMail, SignerSession, seedSamples, sentNda, waitForDocument } from '../../test/documents';
import type { Account } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { dataUrl, signaturePng } from '../../test/images';
import { freePort } from '../../test/ports';
import { mandatedAccount } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';
import { sendNow } from './send';

describe('mail never blocks signing', () => {
  let stack: Stack;
  let account: Account;
  let principal: Principal;
  let nda: Template;

  before(async () => {
    stack = await startStack({
      env: { SVC_MAIL_ATTEMPTS: '2', SVC_RETRY_INITIAL_MS: '100', SVC_RETRY_MAX_MS: '200', SVC_APPLY_WAIT_MS: '30000' },
    });
    ({ account, principal } = await mandatedAccount(stack, { level: 'L2', name: 'Rita Refused' }));
    ({ nda } = await seedSamples(stack, account));
  });
  after(() => stack.close());

  it('a recipient the relay refuses gets a failed invitation the sender can see, while the others sign and the document completes', async () => {
    const other = { name: 'Otto Other', email: `otto-${Date.now()}@example.test` };
    stack.smtp!.refuse(principal.email);
    const created = await sentNda(stack, account, nda, principal, { name: 'Refused NDA', other });
    const documentId = created.document_id;

    const seen = await waitForDocument(
      stack,
      account.key,
      documentId,
      (d) => d.signers[0].invitation?.status === 'failed' && d.signers[1].invitation?.status === 'sent',
      'the invitations to settle',
    );
    assert.match(seen.signers[0].invitation.error, /550|unavailable/);
    assert.equal(seen.signers[1].invitation.error, null);
    const failed = await AuditEvent.query(stack.deps.db).where({ document_id: documentId, action: 'mail.failed' });
    assert.equal(failed.length, 1);
    assert.equal(failed[0].data.to, principal.email);

    // The principal signs by mandate although every mail to them (invitation, L2 notice) is refused.
    const signed = await call(stack.url, 'POST', `/v1/documents/${documentId}/sign`, {
      key: account.key,
      body: { reason: 'signing despite mail' },
    });
    assert.equal(signed.status, 200, signed.text);
    await waitFor(
      'the refused L2 notice to be recorded',
      async () =>
        (await AuditEvent.query(stack.deps.db)
          .where({ document_id: documentId, action: 'mail.failed' })
          .whereRaw(`data->>'purpose' = 'l2-notice'`)
          .first()) ?? undefined,
    );

    const session = await new SignerSession(stack, created.signers[1].sign_url, other.email).verify();
    assert.equal(
      (
        await session.request('POST', '/sign', {
          consent: true,
          signature: { method: 'drawn', image: dataUrl(signaturePng()) },
          values: { 'receiving-title': 'CFO' },
        })
      ).status,
      200,
    );
    await waitForDocument(stack, account.key, documentId, (d) => d.status === 'completed', 'the document to complete');
  });

  it('a confirm mail the relay refuses shows as failed on the sign request, which stays open', async () => {
    const { account: l1, principal: lost } = await mandatedAccount(stack, { level: 'L1', name: 'Lou Lost' });
    stack.smtp!.refuse(lost.email);
    const created = await sentNda(stack, account, nda, lost, { name: 'For L1', other: { name: 'X' } });
    const requested = await call(stack.url, 'POST', `/v1/documents/${created.document_id}/sign-requests`, {
      key: l1.key,
      body: { reason: 'please' },
    });
    assert.equal(requested.status, 201, requested.text);
    const seen = await waitFor('the confirm mail to fail', async () => {
      const reply = await call(stack.url, 'GET', `/v1/sign-requests/${requested.body.sign_request_id}`, { key: l1.key });
      return reply.body.mail?.status === 'failed' ? reply.body : undefined;
    });
    assert.equal(seen.status, 'open');
    assert.match(seen.mail.error, /550|unavailable/);
  });

  it('a code mail the relay refuses answers 503, not 500', async () => {
    const refused = `refused-${Date.now()}@example.test`;
    stack.smtp!.refuse(refused);
    const created = await createDocument(stack, account, {
      template_id: nda.id,
      name: 'Code NDA',
      send: true,
      signers: [
        { name: 'A', email: `a-${Date.now()}@example.test` },
        { name: 'R', email: refused },
      ],
    });
    const path = new URL(created.body.signers[1].sign_url).pathname;
    assertErrorCode(await call(stack.url, 'POST', `${path}/code`), 503, 'service_unavailable');
    assert.equal(await latestMail(stack, refused, 'sign-code'), undefined);
  });

  it('an SMTP outage: a code mail answers 503 and is recorded as failed; a queued mail stays retryable, its text sealed', async () => {
    const mailer = createMailer({
      db: stack.deps.db,
      log: createLogger('silent'),
      smtpUrl: `smtp://127.0.0.1:${await freePort()}`,
      from: 'x <x@example.test>',
      secret: stack.deps.secret,
    });
    try {
      const code = '424242';
      await assert.rejects(
        sendNow(
          { db: stack.deps.db, mailer },
          {
            to: 'down@example.test',
            subject: `Code ${code}`,
            text: `Your code is ${code}`,
            purpose: 'login-code',
            tenantId: account.tenantId,
            secrets: [code],
          },
        ),
        (error: Error & { code?: string }) => error.code === 'service_unavailable',
      );
      const stored = await MailMessage.query(stack.deps.db).where({ to_address: 'down@example.test' }).first();
      assert.equal(stored?.status, 'failed');
      assert.ok(!stored!.text.includes(code) && !stored!.subject.includes(code), 'the code is not stored');
      assert.ok(
        await AuditEvent.query(stack.deps.db)
          .where({ tenant_id: account.tenantId, action: 'mail.failed' })
          .whereRaw(`data->>'mail_id' = ?`, [stored!.id])
          .first(),
      );

      const queued = await mailer.queue({
        to: 'later@example.test',
        subject: 'Link',
        text: 'Open https://x.test/sign/tok-secret',
        purpose: 'sign-invite',
        tenantId: account.tenantId,
        secrets: ['tok-secret'],
        dedupeKey: `outage-${Date.now()}`,
      });
      assert.ok(!queued.text.includes('tok-secret') && !(queued.sealed ?? '').includes('tok-secret'));
      await assert.rejects(
        mailer.deliver(queued.id),
        (error: Error) => !(error instanceof MailRefused),
        'an outage is retried, not refused for good',
      );
      assert.equal((await MailMessage.query(stack.deps.db).findById(queued.id))?.status, 'queued');
    } finally {
      mailer.close();
    }
  });
});

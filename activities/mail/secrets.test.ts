import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MailMessage } from '../../db/models';
import { createLogger } from '../../lib/log';
import { createMailer } from '../../lib/mail';
import { createDocument, seedSamples } from '../../test/documents';
import { createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';

const SIX_DIGITS = /\b(?:\d{10}|\d{6})\b/;

describe('one-time codes and link tokens are never stored or logged in the clear', () => {
  let stack: Stack;
  const lines: string[] = [];

  before(async () => {
    // No SMTP: the embedded outbox, and every log line at debug level captured.
    stack = await startStack({
      env: { SMTP_URL: undefined, LOG_LEVEL: 'debug' },
      log: createLogger('debug', {}, (line) => lines.push(line) > 0),
    });
  });
  after(() => stack.close());

  it('keeps only redacted mail in the outbox and masks link tokens in request logs', async () => {
    const account = await createAccount(stack.deps.db);
    const { nda } = await seedSamples(stack, account);
    const created = await createDocument(stack, account, {
      template_id: nda.id,
      name: 'Secret NDA',
      send: true,
      signers: [
        { name: 'Ann', email: `ann-${Date.now()}@example.test` },
        { name: 'Bo', email: `bo-${Date.now()}@example.test` },
      ],
    });
    assert.equal(created.status, 201, created.text);
    const signer = created.body.signers[0];
    const path = new URL(signer.sign_url).pathname;
    const token = path.split('/').pop()!;

    await waitFor('both invitations in the outbox', async () => {
      const stored = await MailMessage.query(stack.deps.db).where({
        purpose: 'sign-invite',
        document_id: created.body.document_id,
        status: 'stored',
      });
      return stored.length === 2 ? stored : undefined;
    });
    assert.equal((await fetch(`${stack.url}${path}`)).status, 200);
    assert.equal((await call(stack.url, 'POST', `${path}/code`)).status, 200);
    assert.equal((await call(stack.url, 'POST', `${path}/verify`, { body: { code: '000000' } })).status, 400);
    await call(stack.url, 'POST', '/app/login', {
      raw: `email=${encodeURIComponent(signer.email)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

    const mails = await MailMessage.query(stack.deps.db);
    assert.ok(
      mails.some((mail) => mail.purpose === 'sign-code'),
      'the code mail was kept in the outbox',
    );
    for (const mail of mails) {
      assert.ok(!mail.text.includes(token) && !mail.subject.includes(token), `no link token in ${mail.purpose}`);
      assert.doesNotMatch(`${mail.subject}\n${mail.text}`, SIX_DIGITS, `no code in ${mail.purpose}`);
      assert.equal(mail.sealed, null, 'nothing sealed is kept once delivered');
    }
    const logged = lines.join('');
    assert.ok(logged.includes('"msg":"request"'), 'requests were logged');
    assert.ok(!logged.includes(token), 'no link token in the logs');
    assert.doesNotMatch(logged, /Your code is/);
  });

  it('prints a mail in full on the console only in development (npm start), never into the outbox', async () => {
    const printed: string[] = [];
    for (const print of [undefined, (text: string) => printed.push(text)]) {
      const mailer = createMailer({
        db: stack.deps.db,
        log: createLogger('silent'),
        from: 'x <x@example.test>',
        secret: stack.deps.secret,
        print,
      });
      await mailer.send({
        to: `console-${print ? 'dev' : 'other'}@example.test`,
        subject: 'Your code',
        text: 'Your code is 135791',
        purpose: 'login-code',
        secrets: ['135791'],
      });
    }
    assert.equal(printed.length, 1);
    assert.match(printed[0], /console-dev@example\.test[\s\S]*Your code is 135791/);
    const stored = await MailMessage.query(stack.deps.db).where('to_address', 'like', 'console-%');
    for (const mail of stored) assert.doesNotMatch(mail.text, /135791/);
  });
});

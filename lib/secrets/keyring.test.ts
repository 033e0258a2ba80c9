import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { openEventData } from '../../activities/events/outbox';
import { signingSecrets } from '../../activities/webhooks/webhooks';
import { Event, Webhook } from '../../db/models';
import { runAdmin } from '../../test/cli';
import { createDocument, SignerSession, seedSamples } from '../../test/documents';
import { createAccount } from '../../test/factories';
import { call } from '../../test/http';
import { type Stack, startStack } from '../../test/stack';
import { decryptSecret, encryptSecret } from './encrypt';
import { withPreviousKeys } from './keyring';
import { mac, readToken, signToken, verifyMac } from './signed';

const key = () => randomBytes(32).toString('base64');

describe('SVC_SECRET_KEY with the keys it replaced', () => {
  const old = Buffer.from(key());
  const fresh = Buffer.from(key());
  const rotated = withPreviousKeys(Buffer.from(fresh), [Buffer.from(old)]);

  it('verifies MACs and tokens and decrypts secrets made under a previous key, and makes new ones under the current key only', () => {
    const token = signToken(old, 'document-download', { d: 'doc_1', exp: Date.now() + 60_000 });
    assert.equal(readToken<{ d: string; exp: number }>(rotated, 'document-download', token)?.d, 'doc_1');
    assert.equal(readToken(fresh, 'document-download', token), undefined, 'without the previous key the old token fails');
    assert.equal(verifyMac(rotated, 'csrf', 'session', mac(old, 'csrf', 'session')), true);
    assert.equal(verifyMac(rotated, 'csrf', 'session', mac(old, 'other-purpose', 'session')), false);
    const sealed = encryptSecret(old, 'webhook-secret', 'whsec_old');
    assert.equal(decryptSecret(rotated, 'webhook-secret', sealed), 'whsec_old');
    assert.throws(() => decryptSecret(fresh, 'webhook-secret', sealed));
    const made = encryptSecret(rotated, 'webhook-secret', 'whsec_new');
    assert.equal(decryptSecret(fresh, 'webhook-secret', made), 'whsec_new', 'new secrets are sealed with the current key');
    assert.throws(() => decryptSecret(old, 'webhook-secret', made));
    assert.equal(readToken(old, 'document-download', signToken(rotated, 'document-download', { exp: Date.now() + 60_000 })), undefined);
  });

  it('refuses a previous key shorter than 32 characters, naming SVC_SECRET_KEY_PREVIOUS', async () => {
    const { loadConfig } = await import('../config/config');
    assert.throws(() => loadConfig({ SVC_ENV: 'test', SVC_SECRET_KEY_PREVIOUS: `${key()},short` }), /SVC_SECRET_KEY_PREVIOUS/);
    assert.deepEqual(
      loadConfig({ SVC_ENV: 'test', SVC_SECRET_KEY_PREVIOUS: ` ${'a'.repeat(32)} , ${'b'.repeat(40)} ` }).secretKeyPrevious,
      ['a'.repeat(32), 'b'.repeat(40)],
    );
  });
});

describe('rotating SVC_SECRET_KEY on a running service', () => {
  const oldKey = key();
  const newKey = key();
  let stack: Stack;

  before(async () => {
    stack = await startStack({ env: { SVC_SECRET_KEY: oldKey, SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' } });
  });
  after(async () => stack?.close());

  it('keeps sign links and stored secrets working with the old key in SVC_SECRET_KEY_PREVIOUS; reencrypt-secrets moves them to the new key', async () => {
    const owner = await createAccount(stack.deps.db);
    // Its first answer (the secret, shown once) is kept sealed under the Idempotency-Key.
    const idempotent = { key: owner.key, body: { url: 'https://127.0.0.1:9/hooks' }, headers: { 'idempotency-key': 'rotation-hook' } };
    const hook = await call(stack.url, 'POST', '/v1/webhooks', idempotent);
    assert.equal(hook.status, 201, hook.text);
    // A contact invitation: its event keeps the accept link sealed.
    const invited = await call(stack.url, 'POST', '/v1/contacts', {
      key: owner.key,
      body: { email: `invitee-${Date.now()}@example.test`, name: 'Invitee' },
    });
    assert.equal(invited.status, 201, invited.text);
    const { nda } = await seedSamples(stack, owner);
    const email = `rotation-${Date.now()}@example.test`;
    const created = await createDocument(stack, owner, {
      template_id: nda.id,
      name: 'Signed across a rotation',
      signers: [
        { name: 'Rita Rotation', email },
        { name: 'Carl Counterparty', email: `carl-${Date.now()}@example.test` },
      ],
      send: true,
    });
    assert.equal(created.status, 201, created.text);
    const link = created.body.signers[0].sign_url as string;

    // The new key, with the old one still accepted: the link e-mailed before the rotation opens.
    const during = await stack.withEnv({ SVC_SECRET_KEY: newKey, SVC_SECRET_KEY_PREVIOUS: oldKey });
    await new SignerSession({ ...stack, url: during.url }, link, email).verify();
    // The new key alone: the old link is refused, as any forged one is.
    const newOnly = await stack.withEnv({ SVC_SECRET_KEY: newKey });
    assert.equal((await call(newOnly.url, 'POST', `${new URL(link).pathname}/code`)).status, 404);

    const env = { ...stack.env, SVC_SECRET_KEY: newKey, SVC_SECRET_KEY_PREVIOUS: oldKey };
    const first = await runAdmin(['reencrypt-secrets'], env);
    assert.equal(first.code, 0, first.stderr);
    const report = first.json as { columns: Record<string, { reencrypted: number; current: number }>; unreadable: number };
    assert.equal(report.unreadable, 0);
    assert.equal(report.columns['webhooks.secret_ciphertext'].reencrypted, 1);
    assert.ok(report.columns['receipt_keys.private_ciphertext'] !== undefined);
    assert.equal(report.columns['idempotency_keys.response_body'].reencrypted, 1);
    assert.ok(report.columns['events.data'].reencrypted >= 1, JSON.stringify(report.columns['events.data']));
    const row = (await Webhook.query(stack.deps.db).findById(hook.body.webhook_id))!;
    assert.deepEqual(signingSecrets(row, Buffer.from(newKey)), [hook.body.secret], 'readable with the new key alone');
    const replayed = await call(newOnly.url, 'POST', '/v1/webhooks', idempotent);
    assert.equal(replayed.status, 201, replayed.text);
    assert.equal(replayed.body.secret, hook.body.secret, 'the sealed first answer opens with the new key alone');
    const event = (await Event.query(stack.deps.db).where({ event: 'contact.invited', tenant_id: owner.tenantId }).first())!;
    assert.equal(openEventData(Buffer.from(newKey), event.data).accept_url, invited.body.accept_url);

    const again = await runAdmin(['reencrypt-secrets'], env);
    const second = again.json as { columns: Record<string, { reencrypted: number; current: number }> };
    assert.equal(second.columns['webhooks.secret_ciphertext'].reencrypted, 0);
    assert.equal(second.columns['webhooks.secret_ciphertext'].current, 1);
  });
});

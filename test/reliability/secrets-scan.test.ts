import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { createKey } from '../../activities/accounts/accounts';
import type { Template } from '../../db/models';
import { randomBase62 } from '../../lib/ids';
import { createLogger } from '../../lib/log';
import { SignerSession, seedSamples, sentNda, waitForDocument } from '../documents';
import type { Account } from '../factories';
import { driveSamples } from '../files';
import { call, type Reply, type RequestOptions } from '../http';
import { dataUrl, signaturePng } from '../images';
import { AppClient, grantMandate, mandatedAccount, principalOf } from '../principal';
import { Receiver, selfSignedCertificate } from '../receiver';
import type { Stack } from '../stack';
import { waitFor } from '../wait';
import { figure, type Replicas, startReplicas } from './replica-helpers';
import { MintedSecrets, SecretScanner } from './secrets';

// The bucket is on the run's MinIO (TEST_S3_ENDPOINT: test/run.ts starts it for a file that names it).
const SCENARIO = 'secret scan';

/** Every file under a directory, with its path. */
function filesUnder(directory: string): string[] {
  if (!fs.existsSync(directory)) return [];
  return (fs.readdirSync(directory, { recursive: true }) as string[])
    .map((name) => path.join(directory, name))
    .filter((file) => fs.statSync(file).isFile());
}

/**
 * Workflows that mint every kind of secret run through an API process and a worker process at
 * LOG_LEVEL=debug (and the in-process stack, logging at debug too); then every row of every table,
 * every object in the bucket, every file of the data dirs (PDFs also inflated and as text) and every
 * log line (and every workflow history of the task queue) is searched for the raw value of each
 * secret the test was handed. Hashes and ciphertexts
 * are fine; a raw value anywhere is a finding.
 */
describe('reliability: no raw secret in the database, the object store, the data dirs, the logs or the workflow histories', () => {
  const secrets = new MintedSecrets();
  const inProcessLog: string[] = [];
  let replicas: Replicas;
  let stack: Stack;
  let api: string;
  let receiver: Receiver;
  let nda: Template;
  let alice: Account;
  let bob: Account;

  /** A call through the API process whose answer's secrets are remembered. */
  async function request(what: string, method: string, urlPath: string, options: RequestOptions): Promise<Reply> {
    const reply = await call(api, method, urlPath, options);
    secrets.addAnswer(what, reply.body);
    return reply;
  }
  const idempotent = () => ({ 'idempotency-key': `scan-${randomBase62(10)}` });

  before(async () => {
    const tls = selfSignedCertificate();
    receiver = await new Receiver(tls).start();
    replicas = await startReplicas({
      apis: 1,
      workers: 1,
      logLevel: 'debug',
      log: createLogger('debug', {}, (line) => inProcessLog.push(line)),
      env: {
        SVC_APPLY_WAIT_MS: '60000',
        SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        SVC_WEBHOOK_CA_FILE: tls.caFile,
        SVC_OUTBOX_POLL_MS: '100',
        SVC_TRANSFER_RECHECK_MS: '500',
      },
    });
    stack = replicas.stack;
    api = replicas.apis[0].url;
    ({ account: alice } = await mandatedAccount(stack, { name: 'Alice Secret', label: 'alice agent' }));
    ({ account: bob } = await mandatedAccount(stack, { name: 'Bob Secret', label: 'bob agent' }));
    ({ nda } = await seedSamples(stack, alice));
    for (const account of [alice, bob]) secrets.add('API key', account.key);
  });
  after(async () => {
    await replicas?.close();
    await receiver?.stop();
  });

  it('mints every kind of secret through the API process and its worker', async () => {
    const through = { ...stack, url: api } as Stack;
    const alicePrincipal = await principalOf(stack, alice);
    const bobPrincipal = await principalOf(stack, bob);

    // The app: a login (one-time code, session cookie) and an API key made there.
    const app = await new AppClient(through, alice.email).login();
    secrets.addCookie('app session cookie', app.cookie);
    const made = await app.post(`${app.appPath}/keys`, { label: 'made in the app' }, `${app.appPath}/keys`);
    const appKey = /data-testid="new-key">([^<]+)</.exec(await made.text())?.[1];
    assert.ok(appKey?.startsWith('svc_'), 'a key made in the app');
    secrets.add('API key', appKey);

    // Webhooks: a secret at creation (with an Idempotency-Key) and another at rotation.
    const hook = await request('webhook', 'POST', '/v1/webhooks', { key: alice.key, body: { url: receiver.url }, headers: idempotent() });
    assert.equal(hook.status, 201, hook.text);
    const rotated = await request('webhook rotation', 'POST', `/v1/webhooks/${hook.body.webhook_id}/rotate-secret`, {
      key: alice.key,
      body: {},
      headers: idempotent(),
    });
    assert.equal(rotated.status, 200, rotated.text);

    // Contacts: an invitation (accept token) with inbox secrets on both sides.
    const invited = await request('contact', 'POST', '/v1/contacts', {
      key: alice.key,
      body: { email: bob.email, name: 'Bob', inbox_url: receiver.url },
      headers: idempotent(),
    });
    assert.equal(invited.status, 201, invited.text);
    const token = new URL(invited.body.accept_url).searchParams.get('accept');
    const accepted = await request('contact accept', 'POST', '/v1/contacts/accept', {
      key: bob.key,
      body: { token, inbox_url: receiver.url },
      headers: idempotent(),
    });
    assert.equal(accepted.status, 200, accepted.text);

    // A document: sign links (with an Idempotency-Key), the outside signer's code and session, an L2 apply
    // that completes it, and a download link.
    const outsider = { name: 'Olga Outside', email: `olga-${randomBase62(8).toLowerCase()}@example.test` };
    const document = await request('document', 'POST', '/v1/documents', {
      key: alice.key,
      body: { template_id: nda.id, name: 'Secret NDA', signers: [{ name: alicePrincipal.name, email: alice.email }, outsider], send: true },
      headers: idempotent(),
    });
    assert.equal(document.status, 201, document.text);
    const signer = await new SignerSession(through, document.body.signers[1].sign_url, outsider.email).verify();
    secrets.addCookie('signer session cookie', signer.cookie);
    const signed = await signer.request('POST', '/sign', {
      consent: true,
      signature: { method: 'drawn', image: dataUrl(signaturePng()) },
      values: { 'receiving-title': 'Director' },
    });
    assert.equal(signed.status, 200, signed.text);
    const l2 = await request('L2 sign', 'POST', `/v1/documents/${document.body.document_id}/sign`, {
      key: alice.key,
      body: { reason: 'scan' },
      headers: idempotent(),
    });
    assert.equal(l2.status, 200, l2.text);
    await waitForDocument(through, alice.key, document.body.document_id, (d) => d.status === 'completed', 'the document to complete');
    const download = await request('document download', 'GET', `/v1/documents/${document.body.document_id}/download`, { key: alice.key });
    const local = (url: string) => `${api}${new URL(url).pathname}${new URL(url).search}`;
    assert.equal((await fetch(local(download.body.url))).status, 200);

    // L1: a second key of Alice's with an L1 mandate asks; Alice confirms in the app.
    const second = await createKey(stack.deps.db, { principalId: alice.principalId, label: 'alice l1 agent' });
    secrets.add('API key', second.secret);
    const aliceL1 = { ...alice, keyId: second.apiKey.id, key: second.secret };
    await grantMandate(stack, aliceL1, { level: 'L1' });
    const l1Document = await sentNda(through, bob, (await seedSamples(stack, bob)).nda, alicePrincipal, { name: 'L1 NDA' });
    secrets.addAnswer('document', l1Document);
    const asked = await request('sign request', 'POST', `/v1/documents/${l1Document.document_id}/sign-requests`, {
      key: aliceL1.key,
      body: { reason: 'confirm please' },
      headers: idempotent(),
    });
    assert.equal(asked.status, 201, asked.text);
    const link = new URL(asked.body.confirm_url).pathname;
    assert.equal((await app.post(`${link}/confirm`, {}, link)).status, 200);

    // Offers: Bob's agent accepts one at once (L2) and escalates another (a confirm link).
    const contact = invited.body.contact_id;
    let escalatedUrl = '';
    for (const verb of ['accept', 'escalate']) {
      const offered = await sentNda(through, alice, nda, bobPrincipal, { name: `Offer to ${verb}` });
      secrets.addAnswer('document', offered);
      const offer = await request('offer', 'POST', `/v1/documents/${offered.document_id}/offers`, {
        key: alice.key,
        body: { contact_id: contact, terms: 'as drafted' },
        headers: idempotent(),
      });
      assert.equal(offer.status, 201, offer.text);
      const answer = await request(`offer ${verb}`, 'POST', `/v1/offers/${offer.body.offer_id}/${verb}`, {
        key: bob.key,
        body: {},
        headers: idempotent(),
      });
      assert.equal(answer.status, 200, answer.text);
      if (verb === 'escalate') escalatedUrl = answer.body.confirm_url;
    }

    // Transfers: a Drive file, a package offered (claim tokens, with an Idempotency-Key), guest downloads.
    const sample = (await driveSamples())[0];
    const upload = await request('asset', 'POST', `/v1/assets?filename=${sample.name}`, {
      key: alice.key,
      raw: sample.bytes,
      headers: { 'content-type': 'application/octet-stream', ...idempotent() },
    });
    assert.equal(upload.status, 201, upload.text);
    const transfer = await request('transfer', 'POST', '/v1/transfers', {
      key: alice.key,
      body: {
        name: 'Secret pack',
        drive_file_ids: [upload.body.drive_file_id],
        recipients: [
          { email: bob.email, name: 'Bob' },
          { email: `guest-${randomBase62(8).toLowerCase()}@example.test`, name: 'Guest' },
        ],
      },
      headers: idempotent(),
    });
    assert.equal(transfer.status, 201, transfer.text);
    const offered = await request('transfer offer', 'POST', `/v1/transfers/${transfer.body.transfer_id}/offer`, {
      key: alice.key,
      body: { confirm: true },
      headers: idempotent(),
    });
    assert.equal(offered.status, 200, offered.text);
    const [bound, guest] = offered.body.recipients;
    assert.equal(
      (await request('transfer claim', 'POST', '/v1/transfers/claim', { key: bob.key, body: { token: bound.token } })).status,
      200,
    );
    const minted = await request('guest downloads', 'POST', `/v1/public/transfers/${guest.token}/downloads`, {});
    assert.equal(minted.status, 200, minted.text);
    assert.equal((await fetch(local(minted.body.files[0].url))).status, 200);
    assert.equal((await fetch(`${api}${new URL(guest.claim_url).pathname}`)).status, 200, 'the claim page');

    // The links events carry reach their receivers whole (the outbox keeps them sealed).
    const links = { 'contact.invited': invited.body.accept_url, 'offer.escalated': escalatedUrl };
    for (const [event, url] of Object.entries(links)) {
      await waitFor(`${event} delivered with its link`, () =>
        receiver.received.some((entry) => {
          const body = JSON.parse(entry.body);
          return body.event === event && Object.values(body.data).includes(url);
        }),
      );
    }

    // Every mail: its one-time code, the token of each link.
    for (const mail of stack.smtp!.mails) secrets.addMail(mail);
    figure(SCENARIO, `secrets minted and handed to the test: ${JSON.stringify(secrets.counts())} (${secrets.all.size} values)`);
    assert.ok(secrets.counts()['API key'] >= 4);
  });

  it('finds none of their raw values in the database, the bucket, the data dirs, the logs or the workflow histories', async () => {
    // Let the worker finish what the flows queued (mails, deliveries), so its log lines are in.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const scanner = new SecretScanner(secrets);
    scanner.scanned['data dirs'] = { items: 0, bytes: 0 };
    await scanner.scanDatabase(stack.deps.db);
    for (const key of await replicas.bucket.keys()) {
      const object = await replicas.bucket.client.send(new GetObjectCommand({ Bucket: replicas.bucket.name, Key: key }));
      await scanner.scanBytes('bucket', `s3://${replicas.bucket.name}/${key}`, Buffer.from(await object.Body!.transformToByteArray()));
    }
    for (const dataDir of [stack.config.dataDir, ...[...replicas.apis, ...replicas.workers].map((p) => p.dataDir)]) {
      for (const file of filesUnder(dataDir)) await scanner.scanBytes('data dirs', file, fs.readFileSync(file));
    }
    for (const service of [...replicas.apis, ...replicas.workers]) {
      scanner.scanText('logs', `${service.name} output`, service.output());
    }
    scanner.scanText('logs', 'in-process stack log', inProcessLog.join(''));
    // Temporal keeps every workflow's inputs and activity results: the histories of this task queue, payloads decoded.
    const { client, taskQueue } = stack.deps.temporal;
    for await (const execution of client.workflow.list({ query: `TaskQueue = '${taskQueue}'` })) {
      const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
      const text = JSON.stringify(history, (_, value) => (value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value));
      scanner.scanText('temporal histories', execution.workflowId, text);
    }
    const logLines = [...replicas.apis, ...replicas.workers].reduce((sum, p) => sum + p.logLines().length, inProcessLog.length);

    figure(
      SCENARIO,
      `scanned ${Object.entries(scanner.scanned)
        .map(([source, { items, bytes }]) => `${source}: ${items} items, ${(bytes / 1024).toFixed(0)} KiB`)
        .join('; ')}; ${logLines} log lines`,
    );
    // A control: the same search finds each one-time code and mailed link where it belongs, in the mails.
    const control = new SecretScanner(secrets);
    for (const mail of stack.smtp!.mails) control.scanText('mails', mail.subject, mail.text);
    const mailed = [...secrets.all.values()].filter((secret) => /one-time code|mail/.test(secret.kind));
    assert.ok(mailed.length >= 5);
    for (const secret of mailed) {
      assert.ok(
        control.findings.some((finding) => finding.kind === secret.kind && finding.value === `${secret.value.slice(0, 6)}…`),
        `the control finds ${secret.kind}`,
      );
    }

    const report = scanner.findings.map((f) => `${f.kind} ${f.value} in ${f.where}: …${f.context}`);
    figure(SCENARIO, `findings: ${scanner.findings.length}${report.length ? `\n${report.join('\n')}` : ''}`);
    for (const service of [...replicas.apis, ...replicas.workers])
      assert.match(service.output(), /"level":"debug"/, `${service.name} logged at debug`);
    assert.deepEqual(report, [], 'no raw secret stored or logged');
  });
});

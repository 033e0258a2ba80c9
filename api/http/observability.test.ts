import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { writeEvent } from '../../activities/events/outbox';
import type { Principal, Template } from '../../db/models';
import { loadConfig } from '../../lib/config/config';
import { createLogger } from '../../lib/log';
import { startMetricsListener, startMetricsServer } from '../../lib/metrics-server';
import { seedSamples, sentNda, waitForDocument } from '../../test/documents';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { mandatedAccount } from '../../test/principal';
import { Receiver, selfSignedCertificate } from '../../test/receiver';
import { type Stack, startStack } from '../../test/stack';
import { waitFor } from '../../test/wait';

const TOKEN = 'metrics-token-0123456789abcdef';

/** The sum of a metric's samples whose labels include `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) total += Number(match[3]);
  }
  return total;
}

describe('observability: request ids and redaction in logs, /metrics', () => {
  let stack: Stack;
  let account: Account;
  let principal: Principal;
  let nda: Template;
  let tls: ReturnType<typeof selfSignedCertificate>;
  const receivers: Receiver[] = [];
  const lines: string[] = [];
  const scrape = async () => {
    const reply = await fetch(`${stack.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    return reply.text();
  };

  before(async () => {
    tls = selfSignedCertificate();
    // Every log line of the stack (API and worker, at debug) captured; webhook retries short.
    stack = await startStack({
      env: {
        LOG_LEVEL: 'debug',
        SVC_METRICS_TOKEN: TOKEN,
        SVC_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        SVC_WEBHOOK_CA_FILE: tls.caFile,
        SVC_WEBHOOK_RETRY_INITIAL_MS: '200',
        SVC_WEBHOOK_RETRY_MAX_MS: '400',
        SVC_WEBHOOK_GIVE_UP_MS: '1500',
        SVC_OUTBOX_POLL_MS: '100',
      },
      log: createLogger('debug', {}, (line) => lines.push(line)),
    });
    ({ account, principal } = await mandatedAccount(stack, { level: 'L2', name: 'Olga Observed' }));
    ({ nda } = await seedSamples(stack, account));
  });
  after(async () => {
    for (const receiver of receivers) await receiver.stop();
    await stack.close();
  });

  it('a line logged by library code during a request carries that request’s request_id', async () => {
    const refused = `refused-${Date.now()}@example.test`;
    stack.smtp!.refuse(refused);
    const created = await sentNda(stack, account, nda, { name: 'R', email: refused }, { name: 'Logged NDA' });
    const path = new URL(created.signers[0].sign_url).pathname;
    const reply = await call(stack.url, 'POST', `${path}/code`);
    assertErrorCode(reply, 503, 'service_unavailable');
    const requestId = reply.headers.get('x-request-id');
    assert.ok(requestId);
    // lib/mail.ts logs the refused delivery; nothing passes it the request id.
    const failed = lines
      .map((line) => JSON.parse(line))
      .find((line) => line.msg === 'mail delivery failed' && line.purpose === 'sign-code');
    assert.equal(failed?.request_id, requestId, 'the mail failure line carries the request id');
    assert.ok(!lines.join('').includes(path.split('/').pop()!), 'the sign link token is in no log line');
  });

  it('a raw API key sent in Authorization is in no log line at debug level, accepted or refused', async () => {
    const other = await createAccount(stack.deps.db);
    const wrong = `${account.key.slice(0, -4)}XXXX`;
    const before = lines.length;
    assert.equal((await call(stack.url, 'GET', '/v1/me', { key: account.key })).status, 200);
    assert.equal((await call(stack.url, 'GET', '/v1/documents?limit=1', { key: account.key })).status, 200);
    assertErrorCode(await call(stack.url, 'GET', '/v1/me', { key: wrong }), 401, 'unauthorized');
    assertErrorCode(await call(stack.url, 'POST', '/v1/documents', { key: other.key, body: { name: 7 } }), 400, 'invalid_request');
    assert.equal((await call(stack.url, 'GET', '/v1/nowhere', { key: account.key })).status, 404);
    assert.equal((await fetch(`${stack.url}/metrics`, { headers: { authorization: `Bearer ${account.key}` } })).status, 401);
    const logged = lines.slice(before);
    assert.ok(
      logged.some((line) => line.includes('"msg":"request"')),
      'debug request lines were written',
    );
    for (const secret of [account.key, other.key, wrong, TOKEN]) {
      assert.ok(!logged.some((line) => line.includes(secret)), 'no line holds the key');
    }
    assert.ok(!lines.some((line) => line.includes(account.key)));
  });

  it('/metrics on the public port needs the token: none or a wrong one is 401, and without SVC_METRICS_TOKEN it is 404', async () => {
    const none = await call(stack.url, 'GET', '/metrics');
    assertErrorCode(none, 401, 'unauthorized');
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
    assertErrorCode(await call(stack.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}x` } }), 401, 'unauthorized');
    assertErrorCode(await call(stack.url, 'GET', '/metrics', { headers: { authorization: TOKEN } }), 401, 'unauthorized');
    assert.equal((await fetch(`${stack.url}/metrics`, { headers: { authorization: `bearer ${TOKEN}` } })).status, 200);
    const untokened = await stack.withEnv({ SVC_METRICS_TOKEN: undefined, LOG_LEVEL: 'error' });
    try {
      assert.equal((await fetch(`${untokened.url}/metrics`)).status, 404);
      assert.equal((await fetch(`${untokened.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 404);
    } finally {
      await untokened.close();
    }
  });

  it('counts requests by route template, method and status, never by raw path; and applies, workflow starts, mail failures, the pool', async () => {
    const created = await sentNda(stack, account, nda, principal, { name: 'Counted NDA' });
    const documentId = created.document_id;
    const signed = await call(stack.url, 'POST', `/v1/documents/${documentId}/sign`, { key: account.key, body: { reason: 'metrics' } });
    assert.equal(signed.status, 200, signed.text);
    await waitForDocument(stack, account.key, documentId, (d) => d.signers[0].status === 'signed', 'the apply');
    for (let i = 0; i < 3; i += 1)
      assert.equal((await call(stack.url, 'GET', `/v1/documents/${documentId}`, { key: account.key })).status, 200);
    assert.equal((await call(stack.url, 'GET', '/v1/documents/doc_notthere123', { key: account.key })).status, 404);
    assert.equal((await call(stack.url, 'GET', '/v1/secret-looking/xyz-9f8e7d')).status, 404);
    const signPath = new URL(created.signers[1].sign_url).pathname;
    assert.equal((await fetch(`${stack.url}${signPath}`)).status, 200);

    const text = await scrape();
    assert.ok(sample(text, 'svc_http_requests_total', { method: 'GET', route: '/v1/documents/:id', status: '200' }) >= 3);
    assert.ok(sample(text, 'svc_http_requests_total', { method: 'GET', route: '/v1/documents/:id', status: '404' }) >= 1);
    assert.ok(sample(text, 'svc_http_requests_total', { method: 'POST', route: '/v1/documents', status: '201' }) >= 1);
    assert.ok(sample(text, 'svc_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }) >= 1);
    assert.ok(sample(text, 'svc_http_requests_total', { method: 'GET', route: '/metrics', status: '401' }) >= 1);
    assert.ok(sample(text, 'svc_http_request_duration_seconds_count', { method: 'GET', route: '/v1/documents/:id', status: '200' }) >= 3);
    const routes = [...text.matchAll(/route="([^"]*)"/g)].map((match) => match[1]);
    assert.ok(
      routes.every((route) => route === 'unmatched' || route.startsWith('/')),
      routes.join(' '),
    );
    for (const raw of [documentId, 'doc_notthere123', 'xyz-9f8e7d', signPath.split('/').pop()!]) {
      assert.ok(!text.includes(raw), `${raw} is in no label`);
    }
    assert.ok(
      sample(text, 'svc_http_requests_total', { method: 'GET', status: '200' }) >
        sample(text, 'svc_http_requests_total', { method: 'GET', route: '/v1/documents/:id', status: '200' }),
      'the sign page counts under its own template',
    );

    assert.ok(sample(text, 'svc_applies_total', { outcome: 'applied' }) >= 1);
    assert.ok(sample(text, 'svc_workflow_starts_total', { workflow: 'documentWorkflow', outcome: 'started' }) >= 2);
    assert.ok(sample(text, 'svc_mail_failures_total', { purpose: 'sign-code' }) >= 1);
    assert.ok(sample(text, 'svc_mail_attempt_failures_total', { purpose: 'sign-code' }) >= 1);
    for (const name of ['svc_db_pool_used', 'svc_db_pool_free', 'svc_db_pool_pending_acquires', 'process_cpu_user_seconds_total']) {
      assert.match(text, new RegExp(`^${name} \\d`, 'm'));
    }
    assert.ok(sample(text, 'svc_db_pool_free') + sample(text, 'svc_db_pool_used') >= 1, 'the pool holds connections');
    assert.match(text, /^# TYPE svc_webhook_attempts_total counter/m);
    assert.match(text, /^# TYPE svc_webhook_deliveries_failed_total counter/m);
  });

  it('counts webhook attempts by outcome and deliveries given up', async () => {
    const hooked = await createAccount(stack.deps.db);
    const flaky = await new Receiver(tls).start();
    const down = await new Receiver(tls).start();
    receivers.push(flaky, down);
    let calls = 0;
    flaky.respond = () => (++calls === 1 ? 500 : 200);
    down.respond = () => 503;
    for (const receiver of [flaky, down]) {
      const reply = await call(stack.url, 'POST', '/v1/webhooks', { key: hooked.key, body: { url: receiver.url } });
      assert.equal(reply.status, 201, reply.text);
    }
    const before = await scrape();
    await stack.deps.db.transaction((trx) => writeEvent(trx, hooked.tenantId, 'document.signed', { document_id: 'doc_metrics' }));
    const after = await waitFor('a delivery retried then delivered, and one given up', async () => {
      const text = await scrape();
      const gaveUp = sample(text, 'svc_webhook_deliveries_failed_total') - sample(before, 'svc_webhook_deliveries_failed_total');
      return flaky.received.length === 1 && gaveUp === 1 ? text : undefined;
    });
    const delta = (outcome: string) =>
      sample(after, 'svc_webhook_attempts_total', { outcome }) - sample(before, 'svc_webhook_attempts_total', { outcome });
    assert.equal(delta('delivered'), 1);
    assert.ok(delta('failed') >= 2, 'the flaky first attempt and the refused ones');
  });

  it('the internal listener serves /metrics on 127.0.0.1 by default, only that path, and asks for the token when one is set', async () => {
    const config = loadConfig({ SVC_METRICS_PORT: '0' });
    assert.equal(config.metrics.host, '127.0.0.1');
    const open = await startMetricsListener(config.metrics, config.metrics.port, createLogger('silent'));
    assert.ok(open);
    try {
      assert.match(open.url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const reply = await fetch(open.url);
      assert.equal(reply.status, 200);
      assert.match(await reply.text(), /^# TYPE svc_http_requests_total counter/m);
      assert.equal((await fetch(open.url.replace('/metrics', '/v1/health'))).status, 404);
    } finally {
      await open.stop();
    }
    assert.equal(await startMetricsListener(config.metrics, undefined, createLogger('silent')), undefined);

    const guarded = await startMetricsServer({ host: '127.0.0.1', port: 0, token: TOKEN, log: createLogger('silent') });
    try {
      assert.equal((await fetch(guarded.url)).status, 401);
      assert.equal((await fetch(guarded.url, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status, 401);
      assert.equal((await fetch(guarded.url, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200);
    } finally {
      await guarded.stop();
    }
  });
});

import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { MailMessage } from '../../db/models';
import { loadConfig } from '../../lib/config/config';
import { newId } from '../../lib/ids';
import { createLogger } from '../../lib/log';
import { closeServices, createServices } from '../../runtime/services';
import { type Stack, startStack } from '../../test/stack';
import { startHttpServer } from '../server';
import { devMailUrl, isLoopbackHost } from './dev-mail';

describe('/dev/mail', () => {
  let stack: Stack;
  const closers: Array<() => Promise<void>> = [];

  before(async () => {
    stack = await startStack({ worker: false });
  });
  after(async () => {
    for (const close of closers) await close().catch(() => undefined);
    await stack.close();
  });

  /** An API on the stack's database bound where its config says (HOST, PORT=0), as `npm run api` binds it. */
  async function api(env: Record<string, string>): Promise<string> {
    const config = loadConfig({ ...stack.env, ...env });
    const deps = createServices(config, { log: createLogger(config.logLevel) });
    const http = await startHttpServer(deps);
    closers.push(async () => {
      await http.stop();
      await closeServices(deps);
    });
    return http.url;
  }

  /** The outbox link `npm start` prints for this stack's secret. */
  const outbox = (url: string) => devMailUrl(url, stack.deps.secret);

  it('is served in development on a loopback-bound API, with the printed token and a loopback Host only', async () => {
    const url = await api({ SVC_ENV: 'development', HOST: '127.0.0.1' });
    const reply = await fetch(outbox(url));
    assert.equal(reply.status, 200);
    assert.match(await reply.text(), /<h1>Outbox/);
    // Without the token, with another one, or under another Host (a DNS-rebound page's), nothing is listed.
    assert.equal((await fetch(`${url}/dev/mail`)).status, 404);
    assert.equal((await fetch(`${url}/dev/mail?token=${'A'.repeat(43)}`)).status, 404);
    const port = new URL(url).port;
    for (const host of [`rebound.example:${port}`, `192.168.1.5:${port}`]) {
      const rebound = await new Promise<number>((resolve, reject) => {
        const request = http.request(
          { host: '127.0.0.1', port, path: new URL(outbox(url)).pathname + new URL(outbox(url)).search, headers: { host } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end();
      });
      assert.equal(rebound, 404, host);
    }
    assert.equal((await fetch(outbox(url.replace('127.0.0.1', 'localhost')))).status, 200, 'localhost is loopback too');
  });

  it('shows a mail’s subject, address, purpose and text as text', async () => {
    const hostile = `<script>alert(1)</script>" onmouseover="alert(2)'`;
    await MailMessage.query(stack.deps.db).insert({
      id: newId('msg'),
      to_address: `${hostile}@example.test`,
      subject: hostile,
      text: `</pre>${hostile}`,
      purpose: hostile,
      status: 'stored',
    });
    const url = await api({ SVC_ENV: 'development', HOST: '127.0.0.1' });
    const page = await (await fetch(outbox(url))).text();
    assert.ok(!page.includes('<script>alert') && !page.includes('</pre><script>'), page);
    assert.ok(!/onmouseover\s*=\s*"/.test(page), page);
    assert.match(page, /<h2>&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot; onmouseover=&quot;alert\(2\)&#39;<\/h2>/);
    assert.match(page, /<pre>&lt;\/pre&gt;&lt;script&gt;/);
  });

  it('is not found in development on an API bound to 0.0.0.0', async () => {
    const url = await api({ SVC_ENV: 'development', HOST: '0.0.0.0' });
    assert.equal((await fetch(outbox(url))).status, 404);
  });

  it('is not found in test mode, even on loopback', async () => {
    assert.equal(stack.config.env, 'test');
    assert.equal((await fetch(outbox(stack.url))).status, 404);
  });

  it('is not found in production', async () => {
    const url = await api({
      SVC_ENV: 'production',
      SVC_SECRET_KEY: 'p'.repeat(40),
      SVC_TSA_URL: 'https://tsa.example/tsr',
      HOST: '127.0.0.1',
    });
    assert.equal((await fetch(outbox(url))).status, 404);
  });

  it('knows loopback hosts', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST']) assert.equal(isLoopbackHost(host), true, host);
    for (const host of ['0.0.0.0', '::', '192.168.1.5', '10.0.0.1', 'example.com', '127.0.0.1.example.com', '::ffff:127.0.0.1'])
      assert.equal(isLoopbackHost(host), false, host);
  });
});

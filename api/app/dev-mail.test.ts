import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MailMessage } from '../../db/models';
import { loadConfig } from '../../lib/config/config';
import { newId } from '../../lib/ids';
import { createLogger } from '../../lib/log';
import { closeServices, createServices } from '../../runtime/services';
import { type Stack, startStack } from '../../test/stack';
import { startHttpServer } from '../server';
import { isLoopbackHost } from './dev-mail';

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

  it('is served in development on a loopback-bound API', async () => {
    const url = await api({ SVC_ENV: 'development', HOST: '127.0.0.1' });
    const reply = await fetch(`${url}/dev/mail`);
    assert.equal(reply.status, 200);
    assert.match(await reply.text(), /<h1>Outbox/);
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
    const page = await (await fetch(`${url}/dev/mail`)).text();
    assert.ok(!page.includes('<script>alert') && !page.includes('</pre><script>'), page);
    assert.ok(!/onmouseover\s*=\s*"/.test(page), page);
    assert.match(page, /<h2>&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot; onmouseover=&quot;alert\(2\)&#39;<\/h2>/);
    assert.match(page, /<pre>&lt;\/pre&gt;&lt;script&gt;/);
  });

  it('is not found in development on an API bound to 0.0.0.0', async () => {
    const url = await api({ SVC_ENV: 'development', HOST: '0.0.0.0' });
    assert.equal((await fetch(`${url}/dev/mail`)).status, 404);
  });

  it('is not found in test mode, even on loopback', async () => {
    assert.equal(stack.config.env, 'test');
    assert.equal((await fetch(`${stack.url}/dev/mail`)).status, 404);
  });

  it('is not found in production', async () => {
    const url = await api({
      SVC_ENV: 'production',
      SVC_SECRET_KEY: 'p'.repeat(40),
      SVC_TSA_URL: 'https://tsa.example/tsr',
      HOST: '127.0.0.1',
    });
    assert.equal((await fetch(`${url}/dev/mail`)).status, 404);
  });

  it('knows loopback hosts', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST']) assert.equal(isLoopbackHost(host), true, host);
    for (const host of ['0.0.0.0', '::', '192.168.1.5', '10.0.0.1', 'example.com', '127.0.0.1.example.com', '::ffff:127.0.0.1'])
      assert.equal(isLoopbackHost(host), false, host);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from './config/config';
import { createLogger, withLogContext, withoutLogContext } from './log';

function capture(level: Parameters<typeof createLogger>[0] = 'debug', redact: string[] = []) {
  const lines: string[] = [];
  const log = createLogger(level, {}, (line) => lines.push(line), { redact });
  return { log, lines, parsed: () => lines.map((line) => JSON.parse(line)) };
}

describe('logs (pino)', () => {
  it('writes one JSON line per call with time, level, msg and the fields; errors with their message and stack', () => {
    const { log, lines, parsed } = capture('info');
    log.debug('not at info');
    log.child({ component: 'api' }).warn('hello', { n: 1, error: new Error('boom') });
    assert.equal(lines.length, 1);
    assert.ok(lines[0].endsWith('}\n'));
    const [line] = parsed();
    assert.equal(line.level, 'warn');
    assert.equal(line.msg, 'hello');
    assert.equal(line.component, 'api');
    assert.equal(line.n, 1);
    assert.equal(line.error.message, 'boom');
    assert.match(line.error.stack, /boom/);
    assert.ok(!Number.isNaN(Date.parse(line.time)));
  });

  it('writes nothing when silent', () => {
    const { log, lines } = capture('silent');
    log.error('nothing');
    assert.deepEqual(lines, []);
  });

  it('says which levels it writes, for callers that skip building a line that would not be written', () => {
    const info = createLogger('info', {}, () => undefined);
    assert.deepEqual(
      (['debug', 'info', 'warn', 'error'] as const).map((level) => info.enabled?.(level)),
      [false, true, true, true],
    );
    assert.equal(info.child({ component: 'api' }).enabled?.('debug'), false);
    assert.equal(createLogger('debug', {}, () => undefined).enabled?.('debug'), true);
    assert.equal(createLogger('silent', {}, () => undefined).enabled?.('error'), false);
  });

  it('redacts secret fields at the top level, one object down and in bound fields', () => {
    const { log, lines, parsed } = capture();
    log.child({ token: 'tok-bound' }).info('secrets', {
      authorization: 'Bearer svc_live_secret',
      api_key: 'svc_key_secret',
      code: '123456',
      headers: {
        authorization: 'Bearer nested-secret',
        cookie: 'session=cookie-secret',
        'set-cookie': 'x=set-secret',
        'webhook-signature': 'v1,hook-signature-secret',
        'x-svc-mcp-loopback': 'loopback-secret',
      },
      webhook: { secret: 'whsec_secret', url: 'https://example.test/hook' },
      sign_url: 'https://example.test/sign/doc.MAC-secret',
      claim_token: 'svcxfer_secret',
      document_id: 'doc_visible',
    });
    const text = lines.join('');
    for (const secret of [
      'tok-bound',
      'svc_live_secret',
      'svc_key_secret',
      '123456',
      'nested-secret',
      'cookie-secret',
      'set-secret',
      'hook-signature-secret',
      'loopback-secret',
    ]) {
      assert.ok(!text.includes(secret), `${secret} is not logged`);
    }
    for (const secret of ['whsec_secret', 'MAC-secret', 'svcxfer_secret']) assert.ok(!text.includes(secret), `${secret} is not logged`);
    const [line] = parsed();
    assert.equal(line.authorization, '[redacted]');
    assert.equal(line.headers.authorization, '[redacted]');
    assert.equal(line.webhook.secret, '[redacted]');
    assert.equal(line.webhook.url, 'https://example.test/hook');
    assert.equal(line.document_id, 'doc_visible');
  });

  it('redacts the extra paths of SVC_LOG_REDACT, and refuses one pino cannot compile', () => {
    const config = loadConfig({ SVC_LOG_REDACT: 'principal.email, *.iban' });
    assert.deepEqual(config.logRedact, ['principal.email', '*.iban']);
    const { log, parsed } = capture('debug', config.logRedact);
    log.info('extra', { principal: { email: 'ann@example.test', name: 'Ann' }, account: { iban: 'DE00 1234' } });
    const [line] = parsed();
    assert.equal(line.principal.email, '[redacted]');
    assert.equal(line.principal.name, 'Ann');
    assert.equal(line.account.iban, '[redacted]');
    assert.throws(() => loadConfig({ SVC_LOG_REDACT: 'a..b' }), /SVC_LOG_REDACT/);
  });

  it('adds the context’s fields (request_id) to every line written inside it, across awaits and by any logger', async () => {
    const { log, parsed } = capture();
    const other = log.child({ component: 'lib' });
    await Promise.all(
      ['req-1', 'req-2'].map((id) =>
        withLogContext({ request_id: id }, async () => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          other.info('inside', { expected: id });
          log.debug('own field wins', { request_id: `${id}-explicit` });
          withoutLogContext(() => log.info('no request’s'));
        }),
      ),
    );
    log.info('outside');
    const lines = parsed();
    for (const line of lines.filter((entry) => entry.msg === 'inside')) assert.equal(line.request_id, line.expected);
    assert.deepEqual(
      lines
        .filter((entry) => entry.msg === 'own field wins')
        .map((entry) => entry.request_id)
        .sort(),
      ['req-1-explicit', 'req-2-explicit'],
    );
    assert.equal(lines.find((entry) => entry.msg === 'outside').request_id, undefined);
    assert.deepEqual(
      lines.filter((entry) => entry.msg === 'no request’s').map((entry) => entry.request_id),
      [undefined, undefined],
    );
  });
});

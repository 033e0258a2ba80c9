import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { ensureCompose } from './compose';

const ROOT = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);

/** `docker compose config` on the checkout's docker-compose.yml, with only these variables set. */
async function config(env: Record<string, string>, args: string[] = []) {
  const compose = await ensureCompose({ explicit: process.env.COMPOSE_BINARY });
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  return run(compose, ['-f', path.join(ROOT, 'docker-compose.yml'), ...args, 'config', '--format', 'json'], {
    env: { ...base, ...env },
    cwd: ROOT,
  }).then(
    ({ stdout }) => ({
      ok: true as const,
      config: JSON.parse(stdout) as { services: Record<string, { environment?: Record<string, string> }> },
    }),
    (error: { stderr?: string }) => ({ ok: false as const, stderr: String(error.stderr) }),
  );
}

describe('docker-compose.yml, as `docker compose config` reads it', () => {
  const secret = { SVC_SECRET_KEY: 'k'.repeat(48) };

  it('refuses to run without SMTP_URL, naming it: there is no open mail catcher by default', async () => {
    const refused = await config(secret);
    assert.equal(refused.ok, false);
    assert.match(refused.ok ? '' : refused.stderr, /SMTP_URL/);
  });

  it('with a relay starts no mail catcher, and every service container gets that relay', async () => {
    const relay = 'smtps://user:pass@smtp.example.com:465';
    const read = await config({ ...secret, SMTP_URL: relay });
    assert.ok(read.ok, read.ok ? '' : read.stderr);
    const services = read.ok ? read.config.services : {};
    assert.equal(services.mailpit, undefined, 'no Mailpit outside the dev profile');
    for (const name of ['api', 'worker', 'migrate']) assert.equal(services[name]?.environment?.SMTP_URL, relay, name);
    assert.equal(services.api?.environment?.SVC_ENV, 'production');
  });

  it('adds Mailpit, bound to loopback, only under the dev profile', async () => {
    const read = await config({ ...secret, SMTP_URL: 'smtp://mailpit:1025' }, ['--profile', 'dev']);
    assert.ok(read.ok, read.ok ? '' : read.stderr);
    const mailpit = (read.ok ? read.config.services : {}).mailpit as { ports?: Array<{ host_ip?: string }> } | undefined;
    assert.ok(mailpit, 'Mailpit runs with --profile dev');
    assert.ok(
      mailpit.ports?.every((port) => port.host_ip === '127.0.0.1'),
      JSON.stringify(mailpit.ports),
    );
  });
});

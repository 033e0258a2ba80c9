import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config';

/** A production timestamp authority, which production requires. */
const TSA = { SVC_TSA_URL: 'https://tsa.example/tsr' };

describe('configuration', () => {
  it('runs on embedded defaults with nothing set', () => {
    const config = loadConfig({});
    assert.equal(config.port, 3000);
    assert.equal(config.publicUrl, 'http://localhost:3000');
    assert.equal(config.appUrl, 'http://localhost:3000/app');
    assert.equal(config.docsUrl, 'http://localhost:3000/docs/errors');
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.temporal.address, undefined);
    assert.equal(config.durations.signRequestMs, 24 * 60 * 60_000);
    assert.equal(config.durations.downloadUrlMs, 5 * 60_000);
  });

  it('requires SVC_SECRET_KEY in production, and a long one', () => {
    assert.throws(
      () => loadConfig({ SVC_ENV: 'production' }),
      (error: Error) => error instanceof ConfigError && /SVC_SECRET_KEY is required in production/.test(error.message),
    );
    assert.throws(() => loadConfig({ SVC_ENV: 'development', SVC_SECRET_KEY: 'short' }), /SVC_SECRET_KEY: must be at least 32 characters/);
    assert.equal(
      loadConfig({ SVC_ENV: 'production', SVC_SECRET_KEY: 'x'.repeat(32), SMTP_URL: 'smtp://mail:25', ...TSA }).secretKey,
      'x'.repeat(32),
    );
  });

  it('refuses a PDF thread heap too small for a thread to start (SVC_PDF_MEMORY_MB under 128)', () => {
    assert.throws(() => loadConfig({ SVC_PDF_MEMORY_MB: '64' }), /SVC_PDF_MEMORY_MB/);
    assert.equal(loadConfig({ SVC_PDF_MEMORY_MB: '128' }).pdf.memoryMb, 128);
  });

  it('refuses to start in production without SMTP_URL, rather than keep codes and links in a table', () => {
    assert.throws(
      () => loadConfig({ SVC_ENV: 'production', SVC_SECRET_KEY: 'x'.repeat(32) }),
      (error: Error) => error instanceof ConfigError && /SMTP_URL is required in production/.test(error.message),
    );
    assert.throws(() => loadConfig({ NODE_ENV: 'production', SVC_SECRET_KEY: 'x'.repeat(32) }), /SMTP_URL is required in production/);
    assert.equal(
      loadConfig({ SVC_ENV: 'production', SVC_SECRET_KEY: 'x'.repeat(32), SMTP_URL: 'smtps://u:p@smtp.example.com:465', ...TSA }).env,
      'production',
    );
  });

  it('refuses to start in production without a timestamp authority (SVC_TSA_URL), unless untimestamped seals are accepted outright', () => {
    const production = { SVC_ENV: 'production', SVC_SECRET_KEY: 'x'.repeat(32), SMTP_URL: 'smtp://mail:25' };
    assert.throws(
      () => loadConfig(production),
      (error: Error) => error instanceof ConfigError && /SVC_TSA_URL is required in production/.test(error.message),
    );
    const timed = loadConfig({ ...production, SVC_TSA_URL: 'https://tsa.example/tsr', SVC_TSA_USERNAME: 'u', SVC_TSA_PASSWORD: 'p' });
    assert.deepEqual(timed.signing.tsa, { url: 'https://tsa.example/tsr', username: 'u', password: 'p', timeoutMs: 10_000 });
    assert.equal(timed.signing.allowUntimestamped, false);
    const weaker = loadConfig({ ...production, SVC_ALLOW_UNTIMESTAMPED_SEALS: 'true' });
    assert.equal(weaker.signing.tsa, undefined);
    assert.equal(weaker.signing.allowUntimestamped, true);
    assert.throws(() => loadConfig({ SVC_TSA_URL: 'ftp://tsa.example' }), /SVC_TSA_URL/);
    // Outside production the development authority under the data dir stamps seals.
    assert.equal(loadConfig({}).signing.tsa, undefined);
  });

  it('treats NODE_ENV=production without SVC_ENV as production, so it requires SVC_SECRET_KEY; SVC_ENV wins when set', () => {
    assert.throws(() => loadConfig({ NODE_ENV: 'production' }), /SVC_SECRET_KEY is required in production/);
    const production = loadConfig({ NODE_ENV: 'production', SVC_SECRET_KEY: 'x'.repeat(32), SMTP_URL: 'smtp://mail:25', ...TSA });
    assert.equal(production.env, 'production');
    assert.equal(production.flags.values.l2_signing, false, 'l2_signing defaults off in production');
    assert.equal(loadConfig({ NODE_ENV: 'production', SVC_ENV: 'development' }).env, 'development');
    assert.equal(loadConfig({ NODE_ENV: 'development' }).env, 'development');
    assert.equal(loadConfig({}).env, 'development');
  });

  it('the Dockerfile runs the image with SVC_ENV=production', () => {
    const dockerfile = fs.readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    assert.match(dockerfile, /^ENV\b.*\bSVC_ENV=production\b/m);
  });

  it('names each variable it cannot use', () => {
    assert.throws(() => loadConfig({ PORT: 'eighty' }), /PORT/);
    assert.throws(() => loadConfig({ SMTP_URL: 'http://mail' }), /SMTP_URL: must start with smtp:\/\/ or smtps:\/\//);
    assert.throws(() => loadConfig({ SVC_PUBLIC_URL: 'not a url' }), /SVC_PUBLIC_URL/);
  });

  it('honours fault injection only in tests', () => {
    assert.equal(loadConfig({ SVC_ENV: 'test', SVC_FAULT_APPLY_PAUSE_MS: '50' }).faults.applyPauseMs, 50);
    assert.equal(loadConfig({ SVC_ENV: 'development', SVC_FAULT_APPLY_PAUSE_MS: '50' }).faults.applyPauseMs, 0);
  });
});

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { withEnvironmentTable } from '../../runtime/docs-env';
import type { Config } from './config';
import { loadConfig } from './config';
import { FLAG_NAMES, flagEnvName } from './flags';
import { EnvSchema, SETTINGS, shownDefault } from './settings';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** Fails to compile when a part of Config is `any` (the table's types must reach the code). */
type NotAny<T> = 0 extends 1 & T ? never : T;
const typed: { port: NotAny<Config['port']>; env: NotAny<Config['env']>; retry: NotAny<Config['durations']['retryMaxMs']> } = {
  port: 1,
  env: 'test',
  retry: 1,
};

function sources(directory: string): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(full);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [full] : [];
  });
}

describe('settings: every environment variable declared once', () => {
  it('the environment table of docs/configuration.md is the one generated from the settings (npm run docs:env writes it)', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'docs', 'configuration.md'), 'utf8');
    assert.ok(withEnvironmentTable(readme) === readme, 'docs/configuration.md differs from lib/config/settings.ts: run `npm run docs:env`');
    for (const name of Object.keys(SETTINGS)) assert.ok(readme.includes(`| \`${name}\` |`), `${name} has a row`);
  });

  it('every variable the service reads (SVC_*, TEMPORAL_*, DATABASE_*, OTEL_*, SMTP_*) has an entry with a meaning', () => {
    const read = new Set<string>();
    for (const directory of ['api', 'activities', 'lib', 'runtime', 'worker', 'workflows', 'db'])
      for (const file of sources(path.join(ROOT, directory)))
        for (const match of fs.readFileSync(file, 'utf8').matchAll(/\benv(?:\.|\[')((?:SVC|TEMPORAL|DATABASE|OTEL|SMTP)_[A-Z0-9_]+)/g))
          read.add(match[1]);
    // The tests' own: where SPEC.md is (the parity and catalogue checks).
    read.delete('SVC_SPEC_PATH');
    for (const name of [...read, ...Object.keys(EnvSchema.shape), ...FLAG_NAMES.map(flagEnvName)]) {
      const setting = (SETTINGS as Record<string, { doc: string }>)[name];
      assert.ok(setting, `${name} is read but not declared in lib/config/settings.ts`);
      assert.ok(setting.doc.length > 10, `${name} says what it does`);
    }
  });

  it('the default column says what loadConfig does with the variable unset', () => {
    const config = loadConfig({});
    assert.equal(shownDefault(SETTINGS.PORT), `\`${config.port}\``);
    assert.equal(shownDefault(SETTINGS.SVC_RETRY_MAX_MS), `\`${config.durations.retryMaxMs}\``);
    assert.equal(shownDefault(SETTINGS.SVC_PDF_MEMORY_MB), `\`${config.pdf.memoryMb}\``);
    assert.equal(shownDefault(SETTINGS.SVC_TRUST_PROXY), `\`${config.trustProxy}\``);
    assert.equal(shownDefault(SETTINGS.DATABASE_URL), '(unset: embedded PGlite)');
    assert.equal(config.databaseUrl, undefined);
    assert.ok(typed);
  });
});

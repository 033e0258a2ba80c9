import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { goInstall, onPath, toolCacheDirectory } from './go-install';

/** The way the Temporal CLI and MinIO are built (runtime/temporal-cli.ts, runtime/minio.ts), on a module of a few kilobytes. */
describe('go install of a pinned tool into its cache directory', () => {
  it('builds the module at its version into the target, logging what it builds', {
    skip: !onPath('go') && 'Go is not installed',
  }, async () => {
    const target = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-go-install-'));
    const lines: string[] = [];
    await goInstall({
      target,
      module: 'golang.org/x/example/hello',
      version: 'v0.0.0-20250915201037-7f05d217867b',
      flags: ['-trimpath'],
      what: 'hello',
      missing: 'no Go',
      log: (line) => lines.push(line),
    });
    assert.match(execFileSync(path.join(target, 'hello'), { encoding: 'utf8' }), /Hello/);
    assert.match(lines[0], /building hello v0\.0\.0-20250915201037-7f05d217867b with go install \(once; cached in /);
    fs.rmSync(target, { recursive: true, force: true });
  });

  it('keeps each tool under SVC_CACHE_DIR, else XDG_CACHE_HOME/svc, else ~/.cache/svc', () => {
    const saved = { cache: process.env.SVC_CACHE_DIR, xdg: process.env.XDG_CACHE_HOME };
    try {
      process.env.SVC_CACHE_DIR = '/opt/cache';
      assert.equal(toolCacheDirectory('minio-v1'), '/opt/cache/minio-v1');
      delete process.env.SVC_CACHE_DIR;
      process.env.XDG_CACHE_HOME = '/xdg';
      assert.equal(toolCacheDirectory('temporal-1.5.1'), '/xdg/svc/temporal-1.5.1');
      delete process.env.XDG_CACHE_HOME;
      assert.equal(toolCacheDirectory('t'), path.join(os.homedir(), '.cache', 'svc', 't'));
    } finally {
      for (const [name, value] of [
        ['SVC_CACHE_DIR', saved.cache],
        ['XDG_CACHE_HOME', saved.xdg],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

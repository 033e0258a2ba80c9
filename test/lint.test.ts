import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

describe('lint', () => {
  it('biome finds nothing to format or fix (npm run lint)', () => {
    const biome = path.join(ROOT, 'node_modules', '.bin', 'biome');
    const result = spawnSync(biome, ['check', '--max-diagnostics=30', '.'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(result.status, 0, `npm run lint (npm run format fixes the layout):\n${result.stdout}\n${result.stderr}`);
  });
});

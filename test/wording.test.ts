import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
/** SPEC Guarantee 7: sign-to-unlock is not called that word (spelled apart here, so this file does not hold it). */
const FORBIDDEN = new RegExp(['esc', 'row'].join(''), 'i');

describe('the words the service uses', () => {
  it('never gives sign-to-unlock the name SPEC Guarantee 7 forbids: not in the API, the docs, the pages or the code', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .filter((file) => fs.existsSync(path.join(ROOT, file)));
    assert.ok(files.length > 100, 'the tree was listed');
    const found = files.filter((file) => {
      if (FORBIDDEN.test(file)) return true;
      const text = fs.readFileSync(path.join(ROOT, file));
      return FORBIDDEN.test(text.toString('latin1'));
    });
    assert.deepEqual(found, []);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Context } from 'koa';
import { noticeFrom } from './common';

describe('noticeFrom', () => {
  const notices = { stored: 'Your signature is stored.' };
  const from = (done: unknown) => noticeFrom({ query: { done } } as unknown as Context, notices);

  it('shows the notice a redirect named', () => {
    assert.deepEqual(from('stored'), { kind: 'ok', text: 'Your signature is stored.' });
  });

  it('shows nothing for any other value, names of Object.prototype included (a 500 before)', () => {
    for (const done of ['constructor', 'hasOwnProperty', '__proto__', 'toString', 'nope', '', ['stored', 'stored'], undefined])
      assert.equal(from(done), undefined, String(done));
  });
});

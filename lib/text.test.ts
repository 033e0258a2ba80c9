import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from './errors';
import { assertStorableJson, unstorablePath } from './text';

describe('text PostgreSQL refuses, found in parsed JSON', () => {
  it('names the first refused string or key, in document order, with its dotted path', () => {
    assert.equal(unstorablePath({ a: 'ok', b: [{ c: 'x' }, { d: 'bad\u0000' }], e: '\u0000' }), 'b.1.d');
    assert.equal(unstorablePath({ signers: [{ name: 'Ann' }, { name: 'B\ud800' }] }), 'signers.1.name');
    assert.equal(unstorablePath({ ok: 1, 'ke\u0000y': { 'no\u0000': 1 } }), 'ke\\u0000y');
    assert.equal(unstorablePath('\udfff'), '');
    assert.equal(unstorablePath({ a: [1, true, null, 'fine', '😀'] }), undefined);
  });

  it('walks nesting as deep as a body can hold without overflowing the stack (a 500 before)', () => {
    const depth = 500_000;
    const arrays = JSON.parse(`${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}`);
    assert.equal(unstorablePath(arrays)?.split('.').length, depth);
    const objects = JSON.parse(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
    assert.equal(unstorablePath(objects), undefined);
    assert.doesNotThrow(() => assertStorableJson(JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`)));
    assert.throws(
      () => assertStorableJson(arrays, 'widgets'),
      (error: unknown) => error instanceof ServiceError && error.code === 'invalid_request',
    );
  });
});

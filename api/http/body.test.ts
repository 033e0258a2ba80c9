import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '../../lib/errors';
import { readCutShort } from '../../test/cut-short';
import { readJsonBody } from './body';

describe('readJsonBody', () => {
  it('refuses a body its client left before sending in full with 400 invalid_request, not an error logged as a 500', async () => {
    const outcome = await readCutShort((ctx) => readJsonBody(ctx, 1024 * 1024), 'application/json', '{"reason": "half a bo');
    assert.ok(outcome.settled, 'the read never ended');
    assert.ok(outcome.error instanceof ServiceError, `not a ServiceError: ${String(outcome.error)}`);
    assert.equal(outcome.error.code, 'invalid_request');
  });
});

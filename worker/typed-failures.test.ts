import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { errors } from '../lib/errors';
import { toFailure, withTypedFailures } from './typed-failures';

describe('activity failures typed by their code', () => {
  it('a rule’s rejection is non-retryable, typed by its code', () => {
    const failure = toFailure(errors.alreadySigned('done before'));
    assert.ok(failure instanceof ApplicationFailure);
    assert.equal(failure.type, 'already_signed');
    assert.equal(failure.nonRetryable, true);
    assert.equal(failure.message, 'done before');
  });

  it('an unreachable dependency (service_unavailable) and any other error stay retryable', () => {
    const down = errors.serviceUnavailable('Temporal is unreachable');
    assert.equal(toFailure(down), down);
    const crash = new Error('socket hang up');
    assert.equal(toFailure(crash), crash);
  });

  it('wraps every activity of a map', async () => {
    const wrapped = withTypedFailures({
      refuse: async () => {
        throw errors.documentChanged();
      },
    });
    await assert.rejects(wrapped.refuse(), (error: unknown) => error instanceof ApplicationFailure && error.type === 'document_changed');
  });
});

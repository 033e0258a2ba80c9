import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplicationFailure } from '@temporalio/common';
import { errors } from '../lib/errors';
import { BLOB_STORE_FAILURE, DATABASE_FAILURE, DEPENDENCY_FAILURE, toFailure, withTypedFailures } from './typed-failures';

describe('activity failures typed by their code', () => {
  it('a rule’s rejection is non-retryable, typed by its code', () => {
    const failure = toFailure(errors.alreadySigned('done before'));
    assert.ok(failure instanceof ApplicationFailure);
    assert.equal(failure.type, 'already_signed');
    assert.equal(failure.nonRetryable, true);
    assert.equal(failure.message, 'done before');
  });

  it('an unreachable dependency stays retryable and names itself and the activity; any other error is left as it is', () => {
    const down = toFailure(errors.serviceUnavailable('The object store is unreachable'), 'applySignature');
    assert.ok(down instanceof ApplicationFailure);
    assert.equal(down.type, DEPENDENCY_FAILURE);
    assert.equal(down.nonRetryable, false);
    assert.equal(down.message, 'applySignature: The object store is unreachable');
    const crash = new Error('socket hang up');
    assert.equal(toFailure(crash, 'applySignature'), crash);
  });

  it('a database that cannot be reached is named as the database, with the activity', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const failure = toFailure(refused, 'completeDocument');
    assert.ok(failure instanceof ApplicationFailure);
    assert.equal(failure.type, DATABASE_FAILURE);
    assert.equal(failure.nonRetryable, false);
    assert.equal(failure.message, 'completeDocument: the database is unreachable (connect ECONNREFUSED 127.0.0.1:5432)');
  });

  it('a file error under the blob store is named as the blob store; one elsewhere is left as it is', () => {
    const missing = Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT', syscall: 'open', path: '/data/blobs/ab/abcd' });
    const failure = toFailure(missing, 'applySignature');
    assert.ok(failure instanceof ApplicationFailure);
    assert.equal(failure.type, BLOB_STORE_FAILURE);
    assert.equal(failure.message, 'applySignature: the blob store failed (open ENOENT)');
    const other = Object.assign(new Error('ENOENT'), { code: 'ENOENT', path: '/etc/seal.p12' });
    assert.equal(toFailure(other, 'applySignature'), other);
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

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { idToken } from '../../lib/secrets/signed';
import { signerIdFromToken, signerToken } from './links';

describe('sign-link tokens', () => {
  it('are made once per signer and secret, and are the same as made afresh', () => {
    const secret = randomBytes(32);
    const other = randomBytes(32);
    const id = 'sgn_0123456789abcdefABCD';
    const first = signerToken(secret, id);
    assert.equal(first, idToken(secret, 'sign-link', id));
    assert.equal(signerToken(secret, id), first);
    assert.equal(signerIdFromToken(secret, first), id);
    // Another secret (a rotation, another deployment in the process) makes its own.
    assert.notEqual(signerToken(other, id), first);
    assert.equal(signerIdFromToken(other, first), undefined);
  });
});

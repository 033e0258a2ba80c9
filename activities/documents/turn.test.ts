import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SignerStatus } from '../../db/models';
import { maySignNow, signersAllowedNow, waitingFor } from './turn';

const signers = (...statuses: SignerStatus[]) => statuses.map((status, position) => ({ id: `s${position}`, position, status }));
const ids = (list: Array<{ id: string }>) => list.map((signer) => signer.id);

describe('who may sign now', () => {
  it('without strict order: every pending signer, and nobody waits', () => {
    const all = signers('pending', 'signed', 'pending', 'pending');
    assert.deepEqual(ids(signersAllowedNow({ strict_order: false }, all)), ['s0', 's2', 's3']);
    assert.deepEqual(waitingFor({ strict_order: false }, all, all[3]), []);
    assert.equal(maySignNow({ strict_order: false }, all, all[1]), false, 'a signer who signed acts no more');
  });

  it('under strict order: only the first pending signer, the later ones waiting for every earlier one not signed', () => {
    const strict = { strict_order: true };
    const all = signers('pending', 'pending', 'pending');
    assert.deepEqual(ids(signersAllowedNow(strict, all)), ['s0']);
    assert.deepEqual(ids(waitingFor(strict, all, all[2])), ['s0', 's1']);
    assert.equal(maySignNow(strict, all, all[1]), false);

    const next = signers('signed', 'pending', 'pending');
    assert.deepEqual(ids(signersAllowedNow(strict, next)), ['s1']);
    assert.deepEqual(ids(waitingFor(strict, next, next[2])), ['s1']);
    assert.equal(maySignNow(strict, next, next[1]), true);
  });

  it('orders by position, not by the order of the list', () => {
    const all = signers('pending', 'pending').reverse();
    assert.deepEqual(ids(signersAllowedNow({ strict_order: true }, all)), ['s0']);
  });

  it('nobody when everyone has signed or the one in turn declined', () => {
    assert.deepEqual(signersAllowedNow({ strict_order: true }, signers('signed', 'signed')), []);
    assert.deepEqual(signersAllowedNow({ strict_order: true }, signers('declined', 'pending')), []);
    assert.deepEqual(ids(signersAllowedNow({ strict_order: false }, signers('declined', 'pending'))), ['s1']);
  });
});

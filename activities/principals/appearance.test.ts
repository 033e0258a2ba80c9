import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Principal } from '../../db/models';
import type { ServiceError } from '../../lib/errors';
import { type Account, createAccount } from '../../test/factories';
import { blankPng, signaturePng } from '../../test/images';
import { type Stack, startStack } from '../../test/stack';
import { storedAppearance } from '../signing/signing';
import { storeAppearance } from './appearance';

describe('the stored signature appearance and the image limits', () => {
  let stack: Stack;
  let account: Account;
  /** 5000×5000 RGBA at 16 bits: 200 MB of pixels in about 190 KB. */
  const bomb = blankPng(5000, 5000, { bitDepth: 16 });

  before(async () => {
    stack = await startStack({ worker: false });
    account = await createAccount(stack.deps.db);
  });
  after(() => stack.close());

  const principal = async () => (await Principal.query(stack.deps.db).findById(account.principalId))!;
  const actor = () => ({ type: 'principal' as const, id: account.principalId });

  it('refuses an image past the limits with 400 naming the field, and stores one at the limit', async () => {
    await assert.rejects(storeAppearance(stack.deps, await principal(), bomb, actor(), 'image'), (error: ServiceError) => {
      assert.equal(error.status, 400);
      assert.equal(error.code, 'invalid_request');
      assert.equal(error.details?.[0].path, 'image');
      assert.match(error.message, /5000×5000 pixels/);
      return true;
    });
    assert.equal((await principal()).signature_sha256, null);
    const atLimit = blankPng(2000, 2000);
    const stored = await storeAppearance(stack.deps, await principal(), atLimit, actor());
    assert.equal(stored.signature_kind, 'png');
    assert.deepEqual(await storedAppearance(stack.deps, account.principalId), atLimit);
  });

  it('still refuses a truncated PNG and a corrupt CRC as unreadable (415)', async () => {
    const png = signaturePng();
    const corrupt = Buffer.from(png);
    corrupt[45] ^= 0xff;
    for (const bytes of [png.subarray(0, png.length - 20), corrupt]) {
      await assert.rejects(
        storeAppearance(stack.deps, await principal(), bytes, actor()),
        (error: ServiceError) => error.code === 'unsupported_media_type',
      );
    }
  });

  it('storedAppearance refuses an image past the limits stored before them (missing_appearance)', async () => {
    const sha256 = await stack.deps.blobs.put(bomb);
    await Principal.query(stack.deps.db).findById(account.principalId).patch({ signature_sha256: sha256, signature_kind: 'png' });
    await assert.rejects(storedAppearance(stack.deps, account.principalId), (error: ServiceError) => error.code === 'missing_appearance');
  });

  it('storedAppearance answers missing_appearance for a blob that is gone, but a blob store that fails is that failure', async () => {
    const sha256 = createHash('sha256').update('gone').digest('hex');
    await Principal.query(stack.deps.db).findById(account.principalId).patch({ signature_sha256: sha256, signature_kind: 'png' });
    await assert.rejects(storedAppearance(stack.deps, account.principalId), (error: ServiceError) => error.code === 'missing_appearance');
    // The file store's path of that blob is a directory: reading it fails (EISDIR), as a store that cannot answer does.
    assert.equal(stack.config.blobs.kind, 'file');
    const file = path.join((stack.config.blobs as { directory: string }).directory, sha256.slice(0, 2), sha256);
    fs.mkdirSync(file, { recursive: true });
    try {
      await assert.rejects(storedAppearance(stack.deps, account.principalId), (error: NodeJS.ErrnoException) => error.code === 'EISDIR');
    } finally {
      fs.rmSync(file, { recursive: true });
    }
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readableImageKind } from './image';
import { signaturePng, TINY_GIF, TINY_JPEG } from '../../test/images';

describe('readableImageKind', () => {
  it('knows a PNG and a JPEG', async () => {
    assert.equal(await readableImageKind(signaturePng()), 'png');
    assert.equal(await readableImageKind(TINY_JPEG), 'jpeg');
  });

  it('refuses a GIF, an empty file and text', async () => {
    assert.equal(await readableImageKind(TINY_GIF), undefined);
    assert.equal(await readableImageKind(new Uint8Array()), undefined);
    assert.equal(await readableImageKind(Buffer.from('not an image at all')), undefined);
  });

  it('refuses a truncated PNG and a truncated JPEG', async () => {
    const png = signaturePng();
    for (const length of [8, 40, png.length - 20, png.length - 1]) {
      assert.equal(await readableImageKind(png.subarray(0, length)), undefined, `PNG cut at ${length} of ${png.length}`);
    }
    assert.equal(await readableImageKind(TINY_JPEG.subarray(0, TINY_JPEG.length - 40)), undefined);
    assert.equal(await readableImageKind(TINY_JPEG.subarray(0, 300)), undefined);
  });

  it('refuses a PNG whose bytes were changed (bad CRC) and a JPEG magic on garbage', async () => {
    const png = Buffer.from(signaturePng());
    png[60] ^= 0xff;
    assert.equal(await readableImageKind(png), undefined);
    assert.equal(await readableImageKind(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(64, 7)])), undefined);
  });
});

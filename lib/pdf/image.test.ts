import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import zlib from 'node:zlib';
import { blankPng, signaturePng, TINY_GIF, TINY_JPEG } from '../../test/images';
import { checkImage, imageSizeProblem, MAX_IMAGE_PIXEL_BYTES, MAX_IMAGE_PIXELS, readableImageKind } from './image';

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

/** TINY_JPEG with its frame header (SOF0) saying another size: the limits read only the header. */
function jpegOfSize(width: number, height: number): Buffer {
  const jpeg = Buffer.from(TINY_JPEG);
  const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
  jpeg.writeUInt16BE(height, sof + 5);
  jpeg.writeUInt16BE(width, sof + 7);
  return jpeg;
}

describe('image limits', () => {
  it('refuses a 5000×5000 16-bit PNG (200 MB of pixels in a few hundred KB) from its header', async () => {
    const bomb = blankPng(5000, 5000, { bitDepth: 16 });
    assert.ok(bomb.length < 400 * 1024, `${bomb.length} bytes`);
    const checked = await checkImage(bomb);
    assert.equal('problem' in checked && checked.problem, 'too_large');
    assert.match(imageSizeProblem(bomb) ?? '', /5000×5000 pixels \(190\.7 MiB of pixel data\); the limit is 4 megapixels and 16 MiB/);
    assert.equal(await readableImageKind(bomb), undefined);
  });

  it('accepts an image at the limits and refuses one past either', async () => {
    assert.equal(MAX_IMAGE_PIXELS, 4_000_000);
    assert.equal(MAX_IMAGE_PIXEL_BYTES, 16 * 1024 * 1024);
    assert.deepEqual(await checkImage(blankPng(2000, 2000)), { kind: 'png' }, '4 megapixels of 8-bit RGBA: 16,000,000 bytes');
    assert.deepEqual(await checkImage(blankPng(1448, 1448, { bitDepth: 16 })), { kind: 'png' }, '16-bit RGBA up to 16 MiB');
    assert.equal(imageSizeProblem(blankPng(2001, 2000, { colorType: 0 })) !== undefined, true, 'past 4 megapixels even in grey');
    assert.equal(imageSizeProblem(blankPng(1449, 1448, { bitDepth: 16 })) !== undefined, true, '16-bit counts double: past 16 MiB');
    assert.equal(await readableImageKind(jpegOfSize(2000, 2000)), 'jpeg');
    assert.equal('problem' in (await checkImage(jpegOfSize(5000, 5000))) ? 'refused' : 'accepted', 'refused');
  });

  it('still refuses a truncated PNG and a corrupt CRC at the limit', async () => {
    const png = blankPng(2000, 2000);
    assert.equal(await readableImageKind(png.subarray(0, png.length - 13)), undefined);
    const corrupt = Buffer.from(png);
    corrupt[45] ^= 0xff;
    assert.equal(await readableImageKind(corrupt), undefined);
  });

  it('refuses a PNG whose data inflates past its header, and a palette image without a palette', async () => {
    const small = blankPng(10, 10);
    const large = blankPng(10, 11);
    const header = small.subarray(0, 33);
    assert.equal(await readableImageKind(Buffer.concat([header, large.subarray(33)])), undefined, 'IDAT of 11 rows behind an IHDR of 10');
    const palette = Buffer.from(blankPng(4, 4, { colorType: 0 }));
    palette[25] = 3;
    palette.writeUInt32BE(zlib.crc32(palette.subarray(12, 29)), 29);
    assert.equal(await readableImageKind(palette), undefined);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { app, csrf, notice, page, path, postMultipart, useAppStack } from '../../test/fixtures/app';
import { signaturePng } from '../../test/images';

useAppStack();

describe('signature', () => {
  const gif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

  it('refuses a GIF and a text file with a clear message, stores a PNG and serves it back', async () => {
    const token = await csrf();
    for (const file of [
      { name: 'sig.gif', type: 'image/gif', bytes: gif },
      { name: 'notes.txt', type: 'text/plain', bytes: Buffer.from('not an image') },
    ]) {
      const refused = await postMultipart('/signature', { _csrf: token }, { image: file });
      assert.equal(refused.status, 415, file.name);
      assert.match(notice(await refused.text()), /must be a PNG or JPEG image/);
    }
    assert.equal((await page('/signature/image')).status, 404);
    const missing = await postMultipart('/signature', { _csrf: token }, {});
    assert.equal(missing.status, 400);

    const png = signaturePng(200, 60);
    const stored = await postMultipart('/signature', { _csrf: token }, { image: { name: 'sig.png', type: 'image/png', bytes: png } });
    assert.equal(stored.status, 302);
    const html = (await page('/signature?done=stored')).html;
    assert.match(notice(html), /Your signature is stored/);
    assert.match(html, /<img src="\/app\/signature\/image\?v=[0-9a-f]{12}" alt="Your stored signature">/);
    const image = await app.get(path('/signature/image'));
    assert.equal(image.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await image.arrayBuffer()), png);
    assert.match((await page('/')).html, /data-testid="signature-status">Stored \(png/);
  });

  it('stores a drawn signature posted as a PNG data URL, and refuses one that is not', async () => {
    const drawn = signaturePng(300, 90);
    const stored = await app.post(path('/signature'), { drawn: `data:image/png;base64,${drawn.toString('base64')}` }, path('/signature'));
    assert.equal(stored.status, 302);
    assert.deepEqual(Buffer.from(await (await app.get(path('/signature/image'))).arrayBuffer()), drawn);
    const bad = await app.post(path('/signature'), { drawn: 'data:image/gif;base64,R0lGOD' }, path('/signature'));
    assert.equal(bad.status, 415);
    assert.match(notice(await bad.text()), /could not be read as a PNG/);
    const big = await app.post(
      path('/signature'),
      { drawn: `data:image/png;base64,${Buffer.alloc(3 * 1024 * 1024).toString('base64')}` },
      path('/signature'),
    );
    assert.equal(big.status, 413);
    assert.match(notice(await big.text()), /larger than 2 MB/);
  });
});

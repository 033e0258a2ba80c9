import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Principal } from '../../../db/models';
import { type Account, createAccount } from '../../../test/factories';
import { blankPng } from '../../../test/images';
import { AppClient } from '../../../test/principal';
import { type Stack, startStack } from '../../../test/stack';

describe('the signature page and the image limits', () => {
  let stack: Stack;
  let account: Account;
  let app: AppClient;
  /** 5000×5000 RGBA at 16 bits: 200 MB of pixels in about 190 KB. */
  const bomb = blankPng(5000, 5000, { bitDepth: 16 });

  before(async () => {
    stack = await startStack({ worker: false });
    account = await createAccount(stack.deps.db);
    app = await new AppClient(stack, account.email).login();
  });
  after(() => stack.close());

  const path = `/app/signature`;
  const stored = async () => (await Principal.query(stack.deps.db).findById(account.principalId))!.signature_sha256;
  const notice = (html: string) => /data-testid="notice">([^<]*)</.exec(html)?.[1] ?? '';

  async function upload(bytes: Uint8Array): Promise<Response> {
    const html = await (await app.get(path)).text();
    const form = new FormData();
    form.append('_csrf', /name="_csrf" value="([^"]*)"/.exec(html)![1]);
    form.append('image', new Blob([bytes], { type: 'image/png' }), 'sig.png');
    return fetch(`${stack.url}${path}`, { method: 'POST', body: form, headers: { cookie: app.cookie }, redirect: 'manual' });
  }

  it('refuses an uploaded image past the limits with 400 and says why', async () => {
    const refused = await upload(bomb);
    assert.equal(refused.status, 400);
    assert.match(notice(await refused.text()), /5000×5000 pixels .* the limit is 4 megapixels and 16 MiB/);
    assert.equal(await stored(), null);
  });

  it('refuses a drawn image past the limits with 400', async () => {
    const refused = await app.post(path, { drawn: `data:image/png;base64,${bomb.toString('base64')}` }, path);
    assert.equal(refused.status, 400);
    assert.equal(await stored(), null);
  });

  it('stores an image at the limit', async () => {
    const accepted = await upload(blankPng(2000, 2000));
    assert.equal(accepted.status, 302);
    assert.ok(await stored());
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAccount, type Account } from '../../test/factories';
import { signaturePng } from '../../test/images';
import { AppClient } from '../../test/principal';
import { startStack, type Stack } from '../../test/stack';

let stack: Stack;
let account: Account;
let app: AppClient;

before(async () => {
  stack = await startStack({ worker: false });
  account = await createAccount(stack.deps.db);
  app = await new AppClient(stack, account.email).login();
});
after(() => stack?.close());

const path = (suffix: string) => `${app.appPath}${suffix}`;

async function csrf(): Promise<string> {
  return /name="_csrf" value="([^"]*)"/.exec(await (await app.get(path('/keys'))).text())![1];
}

function postUrlencoded(suffix: string, body: string): Promise<Response> {
  return fetch(`${stack.url}${path(suffix)}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: app.cookie }, body, redirect: 'manual' });
}

function postMultipart(suffix: string, form: FormData): Promise<Response> {
  return fetch(`${stack.url}${path(suffix)}`, { method: 'POST', headers: { cookie: app.cookie }, body: form, redirect: 'manual' });
}

/** A multipart body of `count` fields of `size` bytes each, streamed in chunks with no Content-Length. */
function streamedMultipart(count: number, size: number): { body: ReadableStream<Uint8Array>; type: string } {
  const boundary = 'form-boundary-7d3a';
  let sent = 0;
  return {
    type: `multipart/form-data; boundary=${boundary}`,
    body: new ReadableStream({
      pull(controller) {
        if (sent === count) {
          controller.enqueue(new TextEncoder().encode(`--${boundary}--\r\n`));
          controller.close();
          return;
        }
        sent += 1;
        controller.enqueue(new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="field${sent}"\r\n\r\n${'x'.repeat(size)}\r\n`));
      },
    }),
  };
}

describe('forms refuse text PostgreSQL refuses (NUL) with 400 naming the field', () => {
  it('in a url-encoded field value or name', async () => {
    const value = await fetch(`${stack.url}${path('/login')}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=a%00@b.c', redirect: 'manual' });
    assert.equal(value.status, 400);
    assert.match(await value.text(), /email: Text may not contain the NUL character/);
    const name = await postUrlencoded('/keys', `_csrf=${await csrf()}&label=ok&x%00=1`);
    assert.equal(name.status, 400);
    assert.match(await name.text(), /x\\u0000: Text may not contain the NUL character/);
  });

  it('in a multipart field and in an uploaded file’s name', async () => {
    const field = new FormData();
    field.append('_csrf', await csrf());
    field.append('label', 'bot\u0000');
    const refused = await postMultipart('/keys', field);
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /label: Text may not contain the NUL character/);

    // A raw NUL is not valid in a part header; the RFC 5987 form carries it percent-encoded.
    const boundary = 'nul-file-name';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${await csrf()}\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="image"; filename*=UTF-8''sig%00.png\r\nContent-Type: image/png\r\n\r\n`),
      signaturePng(),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const named = await fetch(`${stack.url}${path('/signature')}`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: app.cookie }, body, redirect: 'manual' });
    assert.equal(named.status, 400);
    assert.match(await named.text(), /image: Text may not contain the NUL character/);
  });
});

describe('the byte limit of a form holds for the whole multipart body', () => {
  it('many fields, each under any per-field size, past the form’s limit: 413, whether the length is declared or streamed', async () => {
    const declared = new FormData();
    for (let i = 0; i < 20; i += 1) declared.append(`field${i}`, 'x'.repeat(100 * 1024));
    const refused = await fetch(`${stack.url}${path('/login')}`, { method: 'POST', body: declared, redirect: 'manual' });
    assert.equal(refused.status, 413);

    const { body, type } = streamedMultipart(20, 100 * 1024);
    const streamed = await fetch(`${stack.url}${path('/keys')}`, { method: 'POST', headers: { 'content-type': type, cookie: app.cookie }, body, duplex: 'half', redirect: 'manual' } as RequestInit);
    assert.equal(streamed.status, 413);
    assert.match(await streamed.text(), /larger than 65536 bytes/);
  });

  it('a small multipart form within the limit is read whole', async () => {
    const form = new FormData();
    form.append('_csrf', await csrf());
    form.append('label', 'multipart bot');
    assert.equal((await postMultipart('/keys', form)).status, 201);
  });
});

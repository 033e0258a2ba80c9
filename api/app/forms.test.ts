import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ServiceError } from '../../lib/errors';
import { readCutShort } from '../../test/cut-short';
import { type Account, createAccount } from '../../test/factories';
import { signaturePng } from '../../test/images';
import { AppClient } from '../../test/principal';
import { type Stack, startStack } from '../../test/stack';
import { readForm } from './forms';

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
  return fetch(`${stack.url}${path(suffix)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: app.cookie },
    body,
    redirect: 'manual',
  });
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
        controller.enqueue(
          new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="field${sent}"\r\n\r\n${'x'.repeat(size)}\r\n`),
        );
      },
    }),
  };
}

describe('forms refuse text PostgreSQL refuses (NUL) with 400 naming the field', () => {
  it('in a url-encoded field value or name', async () => {
    const value = await fetch(`${stack.url}${path('/login')}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%00@b.c',
      redirect: 'manual',
    });
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
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename*=UTF-8''sig%00.png\r\nContent-Type: image/png\r\n\r\n`,
      ),
      signaturePng(),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const named = await fetch(`${stack.url}${path('/signature')}`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: app.cookie },
      body,
      redirect: 'manual',
    });
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
    const streamed = await fetch(`${stack.url}${path('/keys')}`, {
      method: 'POST',
      headers: { 'content-type': type, cookie: app.cookie },
      body,
      duplex: 'half',
      redirect: 'manual',
    } as RequestInit);
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

describe('a form whose client leaves before the body ends', () => {
  it('is refused with 400 invalid_request, url-encoded or multipart, instead of a 500 or a read that never ends', async () => {
    const bodies = [
      ['application/x-www-form-urlencoded', 'label=half'],
      ['multipart/form-data; boundary=XX', '--XX\r\nContent-Disposition: form-data; name="label"\r\n\r\nhalf'],
    ];
    for (const [type, body] of bodies) {
      const outcome = await readCutShort((ctx) => readForm(ctx), type, body);
      assert.ok(outcome.settled, `${type}: the read never ended`);
      assert.ok(outcome.error instanceof ServiceError, `${type}: not a ServiceError: ${String(outcome.error)}`);
      assert.equal(outcome.error.code, 'invalid_request');
    }
  });
});

describe('a multipart form that ends inside a file', () => {
  /** Posts a multipart body whose `image` file is cut off: refused past the limit, or missing its closing boundary. */
  async function postCutFile(fileBytes: number, closed: boolean, streamed: boolean): Promise<number> {
    const boundary = 'cut-file-3b1f';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;
    const bytes = Buffer.concat([Buffer.from(head), Buffer.alloc(fileBytes, 65), Buffer.from(closed ? `\r\n--${boundary}--\r\n` : '')]);
    const body = streamed
      ? new ReadableStream({
          start: (controller) => {
            controller.enqueue(bytes);
            controller.close();
          },
        })
      : bytes;
    const response = await fetch(`${stack.url}${path('/keys')}`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: app.cookie },
      body,
      duplex: 'half',
      redirect: 'manual',
    } as RequestInit);
    await response.arrayBuffer();
    return response.status;
  }

  it('is refused, and the file stream busboy destroys raises no uncaught error (which would end the process)', async () => {
    const uncaught: Error[] = [];
    const listener = (error: Error) => uncaught.push(error);
    process.on('uncaughtException', listener);
    try {
      assert.equal(await postCutFile(200 * 1024, true, true), 413);
      assert.equal(await postCutFile(1024, false, false), 400);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(
        uncaught.map((error) => error.message),
        [],
      );
    } finally {
      process.off('uncaughtException', listener);
    }
  });
});

describe('a multipart part without a name', () => {
  const post = (parts: string[]) => {
    const boundary = 'nameless-5c2e';
    const body = `${parts.map((part) => `--${boundary}\r\n${part}`).join('')}--${boundary}--\r\n`;
    return fetch(`${stack.url}${path('/keys')}`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: app.cookie },
      body,
      redirect: 'manual',
    });
  };

  it('is the field "" (busboy names it undefined): NUL in it is 400, otherwise the form is read (a 500 before)', async () => {
    const token = await csrf();
    const field = (disposition: string, value: string) => `Content-Disposition: ${disposition}\r\n\r\n${value}\r\n`;
    assert.equal((await post([field('form-data; name="_csrf"', token), field('form-data; name=""', 'a\u0000b')])).status, 400);
    assert.equal((await post([field('form-data; name="_csrf"', token), field('form-data', 'a\u0000b')])).status, 400);
    const read = await post([
      field('form-data; name="_csrf"', token),
      field('form-data; name="label"', 'nameless parts'),
      field('form-data', 'x'),
      `Content-Disposition: form-data; filename="a.txt"\r\n\r\nbytes\r\n`,
    ]);
    assert.equal(read.status, 201);
  });
});

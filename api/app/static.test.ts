import assert from 'node:assert/strict';
import fs from 'node:fs';
import type net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Router from '@koa/router';
import Koa from 'koa';
import { staticRoutes } from './static';

describe('/static', () => {
  let server: ReturnType<Koa['listen']>;
  let base: string;

  before(async () => {
    const app = new Koa();
    app.silent = true;
    const router = new Router();
    staticRoutes(router);
    app.use(router.routes());
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });
  after(() => server.close());

  it('serves its files', async () => {
    const response = await fetch(`${base}/static/app.css`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/css/);
  });

  it('serves every stylesheet a page links and each part it imports (app.css and sign.css are @imports of their parts)', async () => {
    const directory = path.join(path.dirname(new URL(import.meta.url).pathname), 'browser');
    const imported = new Set<string>();
    for (const sheet of ['app.css', 'sign.css', 'template-editor.css']) {
      const text = fs.readFileSync(path.join(directory, sheet), 'utf8');
      for (const match of text.matchAll(/@import url\("(\/static\/[^"]+)"\)/g)) imported.add(match[1]);
    }
    assert.ok(imported.size > 2, [...imported].join(', '));
    for (const url of imported) {
      const response = await fetch(`${base}${url}`);
      assert.equal(response.status, 200, url);
      assert.match(response.headers.get('content-type') ?? '', /text\/css/, url);
    }
  });

  it('answers 404 for folders named after Object.prototype’s members (a 500 before)', async () => {
    for (const path of [
      '/static/constructor/x.js',
      '/static/hasOwnProperty/x',
      '/static/__proto__/a/b',
      '/static/toString',
      '/static/pdfjs/constructor/x',
    ]) {
      assert.equal((await fetch(`${base}${path}`)).status, 404, path);
    }
  });
});

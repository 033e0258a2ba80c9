import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Context } from 'koa';
import { ServiceError } from '../../lib/errors';
import { storableUrl } from './url-text';

/** The parts of a Koa context storableUrl reads; `query` throws when read, to show the quick path skips it. */
function contextOf(url: string, readable = true): Context {
  const [path, search = ''] = url.split('?');
  return {
    url,
    path,
    method: 'GET',
    get query() {
      if (!readable) throw new Error('query read');
      return Object.fromEntries(new URLSearchParams(search));
    },
  } as unknown as Context;
}

describe('storableUrl', () => {
  const check = storableUrl([]);
  const passes = async (ctx: Context) => {
    let called = false;
    await check(ctx, async () => {
      called = true;
    });
    return called;
  };

  it('passes a URL with nothing percent-encoded without reading its query', async () => {
    assert.equal(await passes(contextOf('/v1/documents/doc_1?limit=20&cursor=a+b', false)), true);
  });

  it('refuses unstorable text however it came: percent-encoded or, past a lenient parser, as sent', async () => {
    for (const url of ['/v1/documents/a%00b', '/v1/documents?name=a%00', '/v1/documents/a\u0000b', '/v1/documents?x=\u0000']) {
      await assert.rejects(
        () => passes(contextOf(url)),
        (error: unknown) => error instanceof ServiceError && error.code === 'invalid_request',
        url,
      );
    }
  });

  it('passes percent-encoded text that is storable', async () => {
    assert.equal(await passes(contextOf('/v1/documents/caf%C3%A9?q=%20x')), true);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Router from '@koa/router';
import type { Context } from 'koa';
import { SegmentRouter } from './segment-router';

const ROUTES: Array<['get' | 'post' | 'delete', string]> = [
  ['get', '/'],
  ['get', '/openapi.json'],
  ['get', '/documents'],
  ['post', '/documents'],
  ['get', '/documents/:id'],
  ['post', '/documents/:id/sign'],
  ['delete', '/documents/:id/signers/:signerId'],
  ['get', '/templates/:id'],
  ['post', '/sign-requests/:id/cancel'],
];

/** The same routes on one router and on a router per segment. */
function both() {
  const one = new Router({ prefix: '/v1' });
  const segmented = new SegmentRouter('/v1');
  for (const [method, path] of ROUTES) {
    one[method](`${method} ${path}`, path, () => undefined);
    segmented.routerFor(path)[method](`${method} ${path}`, path, () => undefined);
  }
  return { one, segmented };
}

const names = (layers: Array<{ name?: string | null }>) => layers.map((layer) => layer.name);

describe('SegmentRouter', () => {
  it('matches every path and method as one router with every route does', () => {
    const { one, segmented } = both();
    const paths = [
      '/v1',
      '/v1/',
      '/v1/openapi.json',
      '/v1/documents',
      '/v1/documents/',
      '/v1/documents/doc_1',
      '/v1/documents/doc_1/sign',
      '/v1/documents/doc_1/signers/sgn_2',
      '/v1/DOCUMENTS/doc_1',
      '/V1/documents/doc_1',
      '/v1/templates/tpl_1',
      '/v1/sign-requests/sr_1/cancel',
      '/v1/nothing/here',
      '/v1//documents',
      '/v1x/documents',
      '/app/documents',
      '/',
    ];
    for (const path of paths)
      for (const method of ['GET', 'POST', 'DELETE', 'PUT']) {
        const expected = one.match(path, method);
        const got = segmented.match(path, method);
        assert.deepEqual(
          { path: names(got.path), pathAndMethod: names(got.pathAndMethod), route: got.route },
          { path: names(expected.path), pathAndMethod: names(expected.pathAndMethod), route: expected.route },
          `${method} ${path}`,
        );
      }
  });

  it('dispatches a request to its segment’s route with its parameters, and passes on what no route takes', async () => {
    const { segmented } = both();
    const seen: string[] = [];
    segmented.routerFor('/contacts/:id').get('contact', '/contacts/:id', (ctx) => {
      seen.push(`contact ${ctx.params.id}`);
    });
    const dispatch = segmented.routes();
    const request = async (path: string) => {
      let passed = false;
      await dispatch({ path, method: 'GET', host: 'localhost', request: {} } as unknown as Context, async () => {
        passed = true;
      });
      return passed;
    };
    assert.equal(await request('/v1/contacts/cnt_7'), false);
    assert.deepEqual(seen, ['contact cnt_7']);
    assert.equal(await request('/v1/unknown/cnt_7'), true, 'a segment no route has passes on');
    assert.equal(await request('/app/contacts/cnt_7'), true, 'a path outside the prefix passes on');
  });

  it('refuses a route whose first segment is a parameter (it could not be routed by it)', () => {
    assert.throws(() => new SegmentRouter('/v1').routerFor('/:id/things'), /first segment must be a literal/);
  });
});

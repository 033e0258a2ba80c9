import assert from 'node:assert/strict';
import { call } from './http';

type Item = Record<string, unknown>;

/** Every item of a list, walked `limit` at a time through next_cursor (DESIGN: HTTP conventions). */
export async function walkPages(url: string, path: string, key: string, limit: number): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages += 1) {
    const query: string = `limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const reply = await call(url, 'GET', `${path}${path.includes('?') ? '&' : '?'}${query}`, { key });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(Object.keys(reply.body).sort(), ['data', 'next_cursor'], `${path} answers {data, next_cursor}`);
    assert.ok(reply.body.data.length <= limit, `${path} answered more than limit=${limit}`);
    items.push(...reply.body.data);
    cursor = reply.body.next_cursor;
    if (!cursor) return items;
    assert.equal(reply.body.data.length, limit, `${path}: a page before the last is full`);
  }
  throw new Error(`${path}: more than 100 pages`);
}

/**
 * A list endpoint keeps the list convention: a first page of 20 by default, every item once in the
 * same newest-first order whatever the page size, and 400 invalid_request naming a bad cursor or limit.
 */
export async function assertPaging(url: string, path: string, key: string, id: string, count: number): Promise<void> {
  const first = await call(url, 'GET', path, { key });
  assert.equal(first.status, 200, first.text);
  const all: Item[] = first.body.data;
  assert.equal(all.length, Math.min(count, 20), `${path}: the first page holds up to 20`);
  assert.equal(first.body.next_cursor === null, count <= 20, `${path}: next_cursor only while more are left`);
  const times = all.map((item) => item.created_at).filter((time): time is string => typeof time === 'string');
  assert.deepEqual(times, [...times].sort().reverse(), `${path}: newest first`);
  for (const limit of [1, 2, 100]) {
    const walked = await walkPages(url, path, key, limit);
    assert.equal(walked.length, count, `${path}: limit=${limit} walks every item`);
    if (count <= 20) {
      assert.deepEqual(
        walked.map((item) => item[id]),
        all.map((item) => item[id]),
        `${path}: limit=${limit} gives the same items in the same order`,
      );
    }
    assert.equal(new Set(walked.map((item) => item[id])).size, count, `${path}: limit=${limit} repeats no item`);
  }
  const bad = (query: string) => call(url, 'GET', `${path}${path.includes('?') ? '&' : '?'}${query}`, { key });
  const forged = Buffer.from(JSON.stringify({ t: 'yesterday', id: 'x' })).toString('base64url');
  for (const cursor of ['garbage', forged, 'x'.repeat(201)]) {
    const reply = await bad(`cursor=${cursor}`);
    assert.equal(reply.status, 400, `${path} cursor=${cursor}: ${reply.text}`);
    assert.equal(reply.body.error.code, 'invalid_request');
    assert.equal(reply.body.error.details[0].path, 'query.cursor', reply.text);
  }
  for (const limit of ['0', '101', 'ten']) {
    const reply = await bad(`limit=${limit}`);
    assert.equal(reply.status, 400, `${path} limit=${limit}: ${reply.text}`);
    assert.equal(reply.body.error.details[0].path, 'query.limit', reply.text);
  }
}

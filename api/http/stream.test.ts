import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { z } from 'zod';
import { ServiceError } from '../../lib/errors';
import { readCutShort } from '../../test/cut-short';
import { type Account, createAccount } from '../../test/factories';
import { assertErrorCode, call } from '../../test/http';
import { type RoutesServer, serveRoutes } from '../../test/routes';
import { type Stack, startStack } from '../../test/stack';
import { buildOpenApi } from '../openapi/document';
import { type StreamBody, streamBody } from './body';
import type { RegisteredRoute } from './route';

const MiB = 1024 * 1024;
const BIG = 512 * MiB;
const SMALL_LIMIT = 4 * MiB;
const TYPES = ['application/octet-stream', 'image/*', 'multipart/form-data'];

interface Upload {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** Bytes the client had sent when the answer came. */
  sent: number;
  sha256: string;
}

/**
 * Streams `total` bytes (a repeating pattern, generated as it goes) to `url`, with Content-Length
 * unless `chunked`. Stops sending as soon as an answer comes, as a client of an early 413 would.
 */
function upload(url: string, options: { total: number; type?: string; chunked?: boolean; key?: string }): Promise<Upload> {
  const chunk = Buffer.alloc(256 * 1024);
  for (let i = 0; i < chunk.length; i += 1) chunk[i] = (i * 31 + 7) % 251;
  const hash = createHash('sha256');
  let sent = 0;
  const source = Readable.from(
    (function* () {
      while (sent < options.total) {
        const piece = chunk.subarray(0, Math.min(chunk.length, options.total - sent));
        sent += piece.length;
        hash.update(piece);
        yield piece;
      }
    })(),
  );
  const headers: Record<string, string> = {};
  if (options.type !== undefined) headers['content-type'] = options.type;
  if (!options.chunked) headers['content-length'] = String(options.total);
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers, agent: false });
    let answered = false;
    request.on('response', (response) => {
      answered = true;
      source.unpipe(request);
      const sentAtAnswer = sent;
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        resolve({
          status: response.statusCode!,
          headers: response.headers,
          body: text ? JSON.parse(text) : undefined,
          sent: sentAtAnswer,
          sha256: hash.digest('hex'),
        });
        request.destroy();
      });
    });
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    source.pipe(request);
  });
}

/** What the test route's handler saw, for the test to check after the answer. */
interface Seen {
  calls: number;
  readable?: boolean;
  type?: string;
  length?: number;
  bytes?: number;
  error?: string;
}

describe('the registry’s streaming body mode (RouteSpec.stream)', () => {
  let stack: Stack;
  let server: RoutesServer;
  let account: Account;
  let dir: string;
  let registered: RegisteredRoute[];
  const seen: Record<string, Seen> = {};

  /** The handler the Drive upload will be: the body to a file on disk, hashed on the way. */
  const toDisk =
    (name: string) =>
    async (_ctx: unknown, { stream }: { stream: StreamBody }) => {
      const record: Seen = { calls: (seen[name]?.calls ?? 0) + 1 };
      seen[name] = record;
      record.readable = stream.stream instanceof Readable;
      record.type = stream.type;
      record.length = stream.length;
      const hash = createHash('sha256');
      let bytes = 0;
      const file = path.join(dir, `${name}-${record.calls}`);
      try {
        await pipeline(
          stream.stream,
          new Transform({
            transform(piece: Buffer, _encoding, done) {
              bytes += piece.length;
              hash.update(piece);
              done(null, piece);
            },
          }),
          fs.createWriteStream(file),
        );
      } catch (error) {
        record.error = error instanceof ServiceError ? error.code : String(error);
        throw error;
      } finally {
        record.bytes = bytes;
        fs.rmSync(file, { force: true });
      }
      return { bytes, sha256: hash.digest('hex') };
    };

  before(async () => {
    stack = await startStack({ worker: false });
    account = await createAccount(stack.deps.db);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-stream-'));
    const Stored = z.object({ bytes: z.number().int(), sha256: z.string() });
    server = await serveRoutes(stack.deps, (routes) => {
      const base = { method: 'post', tag: 'Test', summary: 'A test upload', response: Stored, status: 201 } as const;
      routes.add(
        { ...base, path: '/uploads', operationId: 'testUpload', auth: 'none', stream: { types: TYPES, limit: 2 * BIG } },
        toDisk('big'),
      );
      routes.add(
        { ...base, path: '/uploads/small', operationId: 'testSmallUpload', stream: { types: TYPES, limit: SMALL_LIMIT } },
        toDisk('small'),
      );
      routes.add({ ...base, path: '/uploads/later', operationId: 'testUnbuiltUpload', stream: { types: TYPES, limit: SMALL_LIMIT } });
      routes.add(
        {
          method: 'post',
          path: '/echo',
          operationId: 'testEcho',
          tag: 'Test',
          summary: 'A JSON route beside them',
          auth: 'none',
          body: z.strictObject({ name: z.string().min(1) }),
          response: z.object({ name: z.string() }),
        },
        async (_ctx, { body }) => ({ name: body.name }),
      );
      registered = routes.registered;
    });
  });
  after(async () => {
    await server.close();
    await stack.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('hands the handler the body as a stream that never sits in memory whole, to disk and hashed', async () => {
    const baseline = process.memoryUsage();
    let peak = 0;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peak = Math.max(peak, now.rss - baseline.rss);
    }, 5);
    try {
      const sent = await upload(`${server.url}/v1/uploads`, { total: BIG, type: 'application/octet-stream' });
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
      assert.deepEqual(sent.body, { bytes: BIG, sha256: sent.sha256 });
    } finally {
      clearInterval(sampler);
    }
    assert.equal(seen.big.readable, true, 'the handler got a Readable');
    assert.equal(seen.big.type, 'application/octet-stream');
    assert.equal(seen.big.length, BIG);
    // Client and server share this process: holding the body whole would have grown it by 512 MiB.
    assert.ok(peak < 128 * MiB, `the process grew by ${Math.round(peak / MiB)} MiB while ${BIG / MiB} MiB streamed through`);
  });

  it('takes a chunked body with no Content-Length, and the declared types with their parameters', async () => {
    const chunked = await upload(`${server.url}/v1/uploads`, { total: 3 * MiB + 17, type: 'image/png', chunked: true });
    assert.equal(chunked.status, 201, JSON.stringify(chunked.body));
    assert.deepEqual(chunked.body, { bytes: 3 * MiB + 17, sha256: chunked.sha256 });
    assert.equal(seen.big.length, undefined);
    const multipart = await upload(`${server.url}/v1/uploads`, { total: 1000, type: 'multipart/form-data; boundary=xyz' });
    assert.equal(multipart.status, 201);
    assert.equal(seen.big.type, 'multipart/form-data; boundary=xyz', 'the handler gets the boundary to parse the parts');
  });

  it('answers 413 as soon as a body with no Content-Length passes the limit, and the handler sees the stream fail', async () => {
    const before = seen.small?.calls ?? 0;
    const sent = await upload(`${server.url}/v1/uploads/small`, {
      total: 64 * MiB,
      type: 'application/octet-stream',
      chunked: true,
      key: account.key,
    });
    assert.equal(sent.status, 413, JSON.stringify(sent.body));
    assert.equal(sent.body.error.code, 'payload_too_large');
    assert.ok(sent.sent < 64 * MiB, `the answer came after ${sent.sent} bytes, mid-stream`);
    assert.equal(seen.small.calls, before + 1);
    assert.equal(seen.small.error, 'payload_too_large');
    assert.ok(seen.small.bytes! <= SMALL_LIMIT, `the handler got ${seen.small.bytes} bytes, past the limit`);
  });

  it('answers 413 before reading when Content-Length is past the limit, and 415 for a type the route does not take', async () => {
    const calls = seen.small?.calls ?? 0;
    const declared = await upload(`${server.url}/v1/uploads/small`, {
      total: SMALL_LIMIT + 1,
      type: 'application/octet-stream',
      key: account.key,
    });
    assert.equal(declared.status, 413);
    assert.equal(declared.body.error.code, 'payload_too_large');
    for (const type of ['application/json', 'text/plain', 'image', undefined]) {
      const refused = await upload(`${server.url}/v1/uploads/small`, { total: 100, type, key: account.key });
      assert.equal(refused.status, 415, `${type}: ${JSON.stringify(refused.body)}`);
      assert.equal(refused.body.error.code, 'unsupported_media_type');
    }
    assert.equal(seen.small?.calls ?? 0, calls, 'the handler never ran');
  });

  it('authenticates before reading a byte (401), and answers 501 after its checks while unbuilt', async () => {
    const anonymous = await upload(`${server.url}/v1/uploads/small`, { total: 2 * MiB, type: 'application/octet-stream' });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.code, 'unauthorized');
    const unbuilt = await upload(`${server.url}/v1/uploads/later`, { total: 1000, type: 'application/octet-stream', key: account.key });
    assert.equal(unbuilt.status, 501);
    assert.equal(unbuilt.body.error.code, 'not_implemented');
    const unbuiltBadType = await upload(`${server.url}/v1/uploads/later`, { total: 1000, type: 'text/plain', key: account.key });
    assert.equal(unbuiltBadType.status, 415);
  });

  it('fails the stream with 400 invalid_request when the client leaves mid-body', async () => {
    const outcome = await readCutShort(
      async (ctx) => {
        const { stream } = streamBody(ctx, { types: TYPES, limit: MiB });
        for await (const _ of stream) {
          // read to the end, or to the failure
        }
      },
      'application/octet-stream',
      'half a fi',
    );
    assert.ok(outcome.settled, 'the read never ended');
    assert.ok(outcome.error instanceof ServiceError, `not a ServiceError: ${String(outcome.error)}`);
    assert.equal(outcome.error.code, 'invalid_request');
  });

  it('leaves JSON routes of the same registry as they were: read, validated, 413 and 415', async () => {
    const ok = await call(server.url, 'POST', '/v1/echo', { body: { name: 'Ann' } });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body, { name: 'Ann' });
    assertErrorCode(await call(server.url, 'POST', '/v1/echo', { body: { name: '' } }), 400, 'invalid_request');
    assertErrorCode(
      await call(server.url, 'POST', '/v1/echo', { raw: 'name=Ann', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
    const large = await call(server.url, 'POST', '/v1/echo', { body: { name: 'x'.repeat(stack.config.jsonLimitBytes) } });
    assertErrorCode(large, 413, 'payload_too_large');
  });

  it('is described in OpenAPI as binary or multipart with its limit, in a valid document', async () => {
    const document = buildOpenApi(registered, { serverUrl: server.url, version: 'test' }) as any;
    const body = document.paths['/v1/uploads'].post.requestBody;
    assert.equal(body.required, true);
    assert.match(body.description, new RegExp(`${2 * BIG} bytes`));
    assert.deepEqual(Object.keys(body.content), TYPES);
    assert.deepEqual(body.content['application/octet-stream'].schema, { type: 'string', contentMediaType: 'application/octet-stream' });
    assert.deepEqual(body.content['multipart/form-data'].schema.properties.file, {
      type: 'string',
      contentMediaType: 'application/octet-stream',
    });
    assert.deepEqual(body.content['multipart/form-data'].schema.required, ['file']);
    const responses = document.paths['/v1/uploads'].post.responses;
    assert.ok(responses['413'] && responses['415'], 'it answers 413 and 415');
    const result = await new Validator().validate(structuredClone(document));
    assert.deepEqual(result.errors ?? [], []);
    assert.ok(document.paths['/v1/echo'].post.requestBody.content['application/json'], 'a JSON body is described as before');
  });
});

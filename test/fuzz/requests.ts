import fc from 'fast-check';
import { z } from 'zod';
import type { RegisteredRoute } from '../../api/http/route';
import { dataUrl, TINY_GIF, TINY_JPEG } from '../images';
import type { FuzzMaterial } from './material';
import type { FuzzRequest } from './send';
import {
  type FormPart,
  hostileJson,
  hostileString,
  JSON_TRICKS,
  type JsonSchema,
  jsonText,
  type Material,
  MULTIPART_FLAWS,
  multipartBody,
  mutated,
  RAW_SEGMENTS,
  segment,
} from './values';

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PROPFIND', 'FOO', 'TRACE', 'get'];

interface Segment {
  text: string;
  raw: boolean;
}

/** A body as sent: bytes, its Content-Type (if any), and a Content-Length that lies (if any), or chunked framing. */
interface Body {
  bytes?: Buffer;
  type?: string;
  contentLength?: string;
  /** The bytes are already framed as chunks; `cutShort` when the last chunk never comes. */
  chunked?: { cutShort: boolean };
}

/** `text` in Transfer-Encoding: chunked framing, well formed or not. */
function chunked(text: string, how: string): Buffer {
  const bytes = Buffer.from(text);
  const half = Math.floor(bytes.length / 2);
  const chunk = (part: Buffer, size = part.length.toString(16)) => Buffer.concat([Buffer.from(`${size}\r\n`), part, Buffer.from('\r\n')]);
  const parts = [
    chunk(bytes.subarray(0, half)),
    chunk(bytes.subarray(half), how === 'bad-size' ? 'zz' : how === 'extension' ? `${(bytes.length - half).toString(16)};x=y` : undefined),
  ];
  return Buffer.concat([...parts, Buffer.from(how === 'no-end' ? '' : '0\r\n\r\n')]);
}

export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

/** Everything the fuzzer draws from: the run's material as arbitraries. */
export class Arbitraries {
  readonly values: Material;
  readonly method: (own: string) => fc.Arbitrary<string>;
  readonly origin: fc.Arbitrary<string | undefined>;
  readonly bytes: fc.Arbitrary<Buffer>;

  constructor(
    readonly m: FuzzMaterial,
    readonly jsonLimit: number,
  ) {
    const images = [
      dataUrl(m.images.png),
      dataUrl(m.images.bomb),
      dataUrl(TINY_JPEG, 'image/jpeg'),
      `data:image/png;base64,${m.images.png.subarray(0, 60).toString('base64')}`,
      `data:image/gif;base64,${TINY_GIF.toString('base64')}`,
    ];
    this.values = {
      ids: m.ids,
      emails: m.emails,
      tokens: [...m.signTokens, ...m.confirmTokens, 'svcxfer_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
      urls: [
        'https://127.0.0.1:9/hook',
        'http://127.0.0.1:9/hook',
        'https://10.0.0.1/x',
        'https://[::1]/',
        'https://[::ffff:127.0.0.1]/',
        'https://user:pw@127.0.0.1/',
        'https://localhost/',
        'https://0/',
        'https://2130706433/',
        'ftp://x/',
      ],
      text: fc.oneof({ weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 30 }) }, { weight: 1, arbitrary: hostileString }),
      special: {
        image: fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...images) },
          {
            weight: 1,
            arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => `data:image/png;base64,${Buffer.from(bytes).toString('base64')}`),
          },
          { weight: 1, arbitrary: hostileString },
        ),
        values: fc.dictionary(
          fc.oneof(fc.constantFrom(...m.widgetIds), hostileString),
          fc.oneof(fc.string({ maxLength: 20 }), fc.boolean(), hostileJson),
          { maxKeys: 4 },
        ),
        template_id: fc.oneof({ weight: 3, arbitrary: fc.constant(m.nda.id) }, { weight: 1, arbitrary: fc.constantFrom(...m.ids) }),
        code: fc.oneof(fc.stringMatching(/^\d{6}$/), fc.constantFrom('000000', ' 123456 ', '12345', '1234567'), hostileString),
        events: fc.oneof(
          fc.constant(['*']),
          fc.array(fc.oneof(fc.constantFrom('document.signed', 'transfer.released', 'nope.event'), hostileString), { maxLength: 4 }),
        ),
      },
    };
    this.method = (own) =>
      fc.oneof({ weight: 7, arbitrary: fc.constant(own) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) });
    this.origin = fc.oneof(
      { weight: 6, arbitrary: fc.constant(undefined) },
      { weight: 2, arbitrary: fc.constant(m.origin) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'https://evil.example',
          'null',
          'http://localhost',
          `${m.origin}.evil.example`,
          m.origin.replace('127.0.0.1', 'localhost'),
        ),
      },
      { weight: 1, arbitrary: hostileString },
    );
    this.bytes = fc.oneof(
      { weight: 3, arbitrary: fc.uint8Array({ maxLength: 600 }).map((bytes) => Buffer.from(bytes)) },
      {
        weight: 2,
        arbitrary: fc.constantFrom(
          m.images.png,
          m.images.bomb,
          m.images.pdf,
          TINY_JPEG,
          TINY_GIF,
          m.images.png.subarray(0, 40),
          m.images.pdf.subarray(0, 500),
        ),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom(m.images.png, m.images.pdf, TINY_JPEG), fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 8 }))
          .map(([file, at, bytes]) => corrupt(file, at, bytes)),
      },
    );
  }

  /**
   * A resource id for a path parameter: a real one of the kind the path names (the fuzzing tenant's or
   * another's), a real one of another kind, one of the right shape that exists nowhere, or garbage.
   */
  idOf(path: string): fc.Arbitrary<Segment> {
    const prefix = { documents: 'doc_', templates: 'tpl_', mandates: 'mdt_', webhooks: 'wh_', 'sign-requests': 'sr_' }[
      /^\/([\w-]+)/.exec(path)?.[1] ?? ''
    ];
    const kind = this.m.ids.filter((id) => prefix && id.startsWith(prefix));
    return fc.oneof(
      {
        weight: kind.length ? 6 : 0,
        arbitrary: fc.constantFrom(...(kind.length ? kind : this.m.ids)).map((text) => ({ text, raw: false })),
      },
      { weight: 3, arbitrary: fc.constantFrom(...this.m.ids).map((text) => ({ text, raw: false })) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(
            fc.constantFrom('doc', 'tpl', 'sr', 'mdt', 'ct', 'ofr', 'xfr', 'drv', 'wh', 'key', 'sgn', 'DOC'),
            fc.stringMatching(/^[0-9A-Za-z]{0,40}$/),
          )
          .map(([start, rest]) => ({ text: `${start}_${rest}`, raw: false })),
      },
      { weight: 3, arbitrary: hostileString.map((text) => ({ text, raw: false })) },
      { weight: 2, arbitrary: fc.constantFrom(...RAW_SEGMENTS).map((text) => ({ text, raw: true })) },
      { weight: 1, arbitrary: fc.integer({ min: 101, max: 20_000 }).map((length) => ({ text: 'a'.repeat(length), raw: false })) },
    );
  }

  /** The Authorization header: mostly the Business key, sometimes another tenant's, a free plan's, a revoked one or garbage. */
  authorization(): fc.Arbitrary<string | undefined> {
    const { keys } = this.m;
    return fc.oneof(
      { weight: 12, arbitrary: fc.constant(`Bearer ${keys.business}`) },
      { weight: 2, arbitrary: fc.constant(`Bearer ${keys.l1}`) },
      { weight: 1, arbitrary: fc.constantFrom(`Bearer ${keys.free}`, `Bearer ${keys.revoked}`) },
      { weight: 2, arbitrary: fc.constant(undefined) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'Bearer',
          'Bearer ',
          `bearer ${keys.business}`,
          `Bearer  ${keys.business}  `,
          `Bearer ${keys.business}x`,
          `Bearer ${keys.business.slice(0, -1)}`,
          `Basic ${Buffer.from('a:b').toString('base64')}`,
          `Bearer ${keys.business}, Bearer ${keys.l1}`,
        ),
      },
      { weight: 1, arbitrary: hostileString.map((text) => `Bearer ${text}`) },
    );
  }

  /** A JSON body for a schema: mutated values, raw JSON tricks, wrong or missing Content-Type, sizes around the limit, lying lengths. */
  jsonBody(schema: JsonSchema | undefined): fc.Arbitrary<Body> {
    const value = schema ? mutated(schema, this.values) : hostileJson;
    const json = (text: string, type = 'application/json'): Body => ({ bytes: Buffer.from(text, 'utf8'), type });
    const limit = this.jsonLimit;
    return fc.oneof(
      { weight: 8, arbitrary: value.map((v) => json(JSON.stringify(v) ?? 'null')) },
      {
        weight: 3,
        arbitrary: fc
          .tuple(value, fc.constantFrom(...JSON_TRICKS), hostileString)
          .map(([v, trick, extra]) => json(jsonText(v, trick, extra))),
      },
      { weight: 1, arbitrary: hostileJson.map((v) => json(JSON.stringify(v) ?? 'null')) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(
            value,
            fc.constantFrom(
              undefined,
              '',
              'text/plain',
              'application/x-www-form-urlencoded',
              'multipart/form-data; boundary=x',
              'application/json; charset=utf-16',
              'application/vnd.api+json',
              'application/jsonx',
              'json',
              'application/json, text/plain',
              'APPLICATION/JSON',
              '*/*',
              'application/json;;;',
            ),
            hostileString,
          )
          .map(([v, type, extra]) => ({
            bytes: Buffer.from(JSON.stringify(v) ?? extra, 'utf8'),
            type: type === '' ? extra : type,
          })),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom<Body>({}, json(''), json('   '), json('\n'), { bytes: Buffer.alloc(0), type: 'text/plain' }),
      },
      { weight: 1, arbitrary: this.bytes.map((bytes) => ({ bytes, type: 'application/json' })) },
      // Right below, at and past the limit (a declared Content-Length past it is refused before reading).
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom(limit - 100, limit, limit + 1, limit + 2000), fc.constantFrom('name', 'reason', 'url', 'token', 'x'))
          .map(([size, field]) => json(`{"${field}":"${'x'.repeat(size - field.length - 7)}"}`)),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(value, fc.constantFrom('ok', 'ok', 'bad-size', 'extension', 'no-end')).map(
          ([v, how]): Body => ({
            bytes: chunked(JSON.stringify(v) ?? 'null', how),
            type: 'application/json',
            chunked: { cutShort: how === 'no-end' },
          }),
        ),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            value,
            fc.oneof(
              fc.integer({ min: -5, max: 50 }),
              fc.constantFrom('abc', '-1', '1e3', ' 5', '0x10', '18446744073709551616', '5, 5', ''),
            ),
          )
          .map(([v, lie]) => {
            const bytes = Buffer.from(JSON.stringify(v) ?? 'null');
            return {
              bytes,
              type: 'application/json',
              contentLength: typeof lie === 'number' ? String(Math.max(0, bytes.length + lie)) : lie,
            };
          }),
      },
    );
  }

  /** A query string from the schema's own names (and others), with values that are wrong in every way. */
  query(schema: JsonSchema | undefined): fc.Arbitrary<string> {
    const names = Object.keys(schema?.properties ?? {});
    const cursor = fc.oneof(
      fc.uint8Array({ maxLength: 60 }).map((bytes) => Buffer.from(bytes).toString('base64url')),
      fc.jsonValue({ maxDepth: 2 }).map((value) => Buffer.from(JSON.stringify(value)).toString('base64url')),
      fc
        .record({
          t: fc.oneof(
            fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
            hostileString,
          ),
          id: fc.oneof(fc.constantFrom(...this.m.ids), hostileString),
        })
        .map((value) => Buffer.from(JSON.stringify(value)).toString('base64url')),
      hostileString.map((text) => segment(text, false)),
    );
    const limit = fc.constantFrom(
      '0',
      '1',
      '20',
      '100',
      '101',
      '-1',
      '1e309',
      '1e2',
      '0x10',
      '%20%205',
      '5.5',
      'NaN',
      'Infinity',
      '99999999999999999999999',
      '',
      'abc',
      '1,2',
      '%00',
      '%ff',
      '1%00',
    );
    const pair = fc.oneof(
      { weight: 3, arbitrary: fc.tuple(fc.constant('limit'), limit) },
      { weight: 3, arbitrary: fc.tuple(fc.constant('cursor'), cursor) },
      {
        weight: 2,
        arbitrary: fc.tuple(
          fc.constantFrom(...(names.length ? names : ['limit'])),
          hostileString.map((text) => segment(text, false)),
        ),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(
          fc.constantFrom('direction', 'limit[]', 'limit[0]', '__proto__', 'constructor', 'x', '', 'next', 'token'),
          fc.oneof(
            fc.constantFrom('inbound', 'outbound', '1'),
            hostileString.map((text) => segment(text, false)),
          ),
        ),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(
          hostileString.map((text) => segment(text, false)),
          hostileString.map((text) => segment(text, false)),
        ),
      },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('%', '%zz', '%ff', '=', '&', 'a%00'), fc.constantFrom('', '%', '%e9', '==')) },
    );
    return fc.oneof(
      { weight: 1, arbitrary: fc.constant('') },
      {
        weight: 4,
        arbitrary: fc
          .array(pair, { maxLength: 4 })
          .map((pairs) => (pairs.length ? `?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}` : '')),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '?',
          '??',
          '?&&&',
          '?=',
          '?limit',
          '?limit=1&limit=2',
          '?cursor=&cursor=x',
          '?limit=5#frag',
          `?${'a=1&'.repeat(2000)}`,
        ),
      },
    );
  }

  /** Headers every request may carry beside its own: Origin, an Idempotency-Key, Accept, proxies' headers, a Host. */
  extraHeaders(): fc.Arbitrary<Record<string, string>> {
    return fc
      .record(
        {
          origin: this.origin,
          'idempotency-key': hostileString,
          accept: fc.constantFrom('*/*', 'text/html', 'application/json', 'image/png', ''),
          'x-forwarded-for': fc.constantFrom('1.2.3.4', 'garbage', '::1, 10.0.0.1', ''),
          'x-forwarded-proto': fc.constantFrom('https', 'gopher', ''),
          'user-agent': hostileString,
          host: fc.constantFrom('evil.example', '', 'localhost:1', '[::1'),
        },
        { requiredKeys: [] },
      )
      .map((headers) => Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== undefined)) as Record<string, string>);
  }

  /** Requests for one /v1 route of the registry: its method (mostly), path parameters, query, headers and body. */
  apiRoute(route: RegisteredRoute): fc.Arbitrary<FuzzRequest> {
    const { spec } = route;
    const names = [...spec.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
    const body = spec.body ? jsonSchemaOf(spec.body) : undefined;
    const query = spec.query ? jsonSchemaOf(spec.query) : undefined;
    const bodyArb = body
      ? this.jsonBody(body)
      : fc.oneof({ weight: 6, arbitrary: fc.constant<Body>({}) }, { weight: 1, arbitrary: this.jsonBody(undefined) });
    const group = `${spec.method.toUpperCase()} /v1${spec.path}`;
    return fc
      .record({
        method: this.method(spec.method.toUpperCase()),
        params: fc.tuple(...names.map(() => this.idOf(spec.path))),
        query: fc.oneof({ weight: query ? 3 : 1, arbitrary: this.query(query) }, { weight: query ? 1 : 3, arbitrary: fc.constant('') }),
        authorization: this.authorization(),
        extra: fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: this.extraHeaders() }),
        body: bodyArb,
        cookie: fc.oneof(
          { weight: 9, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constant(`svc_app=${this.m.app.main.cookie.split('=')[1]}`) },
        ),
      })
      .map(({ method, params, query: search, authorization, extra, body: sent, cookie }) => {
        let path = `/v1${spec.path}`;
        names.forEach((name, index) => {
          path = path.replace(`:${name}`, () => segment(params[index].text, params[index].raw));
        });
        return request(
          group,
          method,
          `${path}${search}`,
          { ...extra, ...(authorization !== undefined ? { authorization } : {}), ...(cookie ? { cookie } : {}) },
          sent,
        );
      });
  }

  /** The app's session cookie: the signed-in principal's (mostly), the spare session's, none, garbage or tampered. */
  appCookie(): fc.Arbitrary<string | undefined> {
    const { main, spare } = this.m.app;
    const value = main.cookie.slice('svc_app='.length);
    return fc.oneof(
      { weight: 8, arbitrary: fc.constant(main.cookie) },
      { weight: 2, arbitrary: fc.constant(undefined) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          spare.cookie,
          `svc_app=${value.slice(0, -2)}AA`,
          `svc_app=${value}; svc_app=x`,
          `svc_app=x; ${main.cookie}`,
          'svc_app=',
          'svc_app',
          '=;;=',
          `svc_app=${this.m.signer.cookie.split('=')[1]}`,
        ),
      },
      { weight: 1, arbitrary: hostileString.map((text) => `svc_app=${text}`) },
    );
  }

  /** A form's fields: the route's own names with plausible or hostile values, strangers, and the form token (right, wrong or absent). */
  formFields(fields: Record<string, fc.Arbitrary<string>>, csrf: string): fc.Arbitrary<Array<[string, string]>> {
    const own = fc.record(
      Object.fromEntries(
        Object.entries(fields).map(([name, arb]) => [
          name,
          fc.oneof({ weight: 3, arbitrary: arb }, { weight: 1, arbitrary: hostileString }),
        ]),
      ),
      { requiredKeys: [] },
    );
    return fc
      .tuple(
        own,
        fc.oneof(
          { weight: 6, arbitrary: fc.constant(csrf) },
          { weight: 1, arbitrary: fc.constant(undefined) },
          { weight: 1, arbitrary: fc.constantFrom(this.m.app.spare.csrf, `${csrf}x`, '') },
          { weight: 1, arbitrary: hostileString },
        ),
        fc.array(fc.tuple(hostileString, hostileString), { maxLength: 2 }),
      )
      .map(([values, token, strangers]) => [
        ...(Object.entries(values) as Array<[string, string]>),
        ...(token !== undefined ? [['_csrf', token] as [string, string]] : []),
        ...strangers,
      ]);
  }

  /** A form body: url-encoded (well or badly), multipart with files (well or badly), JSON, nothing, or past the limit. */
  formBody(fields: fc.Arbitrary<Array<[string, string]>>, fileNames: string[], limit: number): fc.Arbitrary<Body> {
    const file = fc.record({
      name: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...(fileNames.length ? fileNames : ['file'])) },
        { weight: 1, arbitrary: hostileString },
      ),
      filename: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom('signature.png', 'template.pdf', 'x', '') },
        { weight: 1, arbitrary: hostileString },
      ),
      type: fc.constantFrom('image/png', 'image/jpeg', 'application/pdf', 'application/octet-stream', 'text/plain', undefined),
      value: this.bytes,
    });
    const urlencoded = fields.map(
      (pairs): Body => ({ bytes: Buffer.from(new URLSearchParams(pairs).toString()), type: 'application/x-www-form-urlencoded' }),
    );
    return fc.oneof(
      { weight: 5, arbitrary: urlencoded },
      {
        weight: 4,
        arbitrary: fc
          .tuple(
            fields,
            fc.array(file, { maxLength: fileNames.length ? 4 : 1 }),
            fc.stringMatching(/^[0-9A-Za-z'()+_,-./:=?]{1,70}$/),
            fc.constantFrom(...MULTIPART_FLAWS),
          )
          .map(([pairs, files, boundary, flaw]) => {
            const parts: FormPart[] = [...pairs.map(([name, value]) => ({ name, value })), ...files.map((f) => ({ ...f, type: f.type }))];
            const { type, body } = multipartBody(parts, { boundary, flaw });
            return { bytes: body, type };
          }),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom('%', '%zz', '%ff', '&&==&', '=%00', 'a=1&a=2', '%ED%A0%80=%ED%A0%80', 'email=%40&email=x'), fields)
          .map(
            ([junk, pairs]): Body => ({
              bytes: Buffer.from(`${junk}&${new URLSearchParams(pairs)}`),
              type: 'application/x-www-form-urlencoded',
            }),
          ),
      },
      {
        weight: 1,
        arbitrary: fields.map(
          (pairs): Body => ({ bytes: Buffer.from(JSON.stringify(Object.fromEntries(pairs))), type: 'application/json' }),
        ),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            this.bytes,
            fc.constantFrom(
              undefined,
              'text/plain',
              'multipart/form-data',
              'multipart/mixed; boundary=x',
              'application/x-www-form-urlencoded; charset=utf-16',
            ),
          )
          .map(([bytes, type]): Body => ({ bytes, type })),
      },
      { weight: 1, arbitrary: fc.constantFrom<Body>({}, { bytes: Buffer.alloc(0), type: 'application/x-www-form-urlencoded' }) },
      {
        weight: 1,
        arbitrary: fc.tuple(fields, fc.constantFrom(limit - 200, limit + 1)).map(
          ([pairs, size]): Body => ({
            bytes: Buffer.from(`${new URLSearchParams(pairs)}&pad=${'x'.repeat(size)}`),
            type: 'application/x-www-form-urlencoded',
          }),
        ),
      },
      {
        weight: 1,
        arbitrary: fc.tuple(urlencoded, fc.oneof(fc.integer({ min: -5, max: 50 }), fc.constantFrom('abc', '-1', ''))).map(
          ([body, lie]): Body => ({
            ...body,
            contentLength: typeof lie === 'number' ? String(Math.max(0, body.bytes!.length + lie)) : lie,
          }),
        ),
      },
    );
  }
}

function corrupt(file: Buffer, at: number, bytes: Uint8Array): Buffer {
  const copy = Buffer.from(file);
  copy.set(bytes.subarray(0, Math.max(0, copy.length - (at % copy.length))), at % copy.length);
  return copy;
}

export function request(group: string, method: string, path: string, headers: Record<string, string>, body: Body): FuzzRequest {
  const all = {
    ...headers,
    ...(body.type !== undefined ? { 'content-type': body.type } : {}),
    ...(body.chunked ? { 'transfer-encoding': 'chunked' } : {}),
  };
  if (body.chunked) return { group, method, path, headers: all, body: body.bytes, raw: {}, cutShort: body.chunked.cutShort };
  // As Node reads the header: surrounding whitespace, and a list of equal values, are taken.
  const declared = body.contentLength?.split(',').map((part) => part.trim());
  const cutShort = declared?.every((part) => /^\d+$/.test(part)) && Number(declared[0]) > (body.bytes?.length ?? 0);
  return {
    group,
    method,
    path,
    headers: all,
    ...(body.bytes ? { body: body.bytes } : {}),
    ...(body.contentLength !== undefined ? { raw: { contentLength: body.contentLength }, cutShort } : {}),
  };
}

/** A page, form or JSON endpoint of the app (not in the /v1 registry), described for the fuzzer. */
export interface PageRoute {
  method: string;
  /** Router syntax, e.g. `/app/keys/:id/revoke`. */
  path: string;
  params?: Record<string, fc.Arbitrary<Segment>>;
  /** Which cookie the page reads: the app session (`spare`: the session the fuzzer may sign out), or the signer's. */
  cookie?: 'app' | 'spare' | 'sign';
  form?: { fields: Record<string, fc.Arbitrary<string>>; files?: string[]; limit?: number };
  json?: z.ZodType;
  query?: Record<string, fc.Arbitrary<string>>;
}

export function segments(values: string[], weight = 6): fc.Arbitrary<Segment> {
  return fc.oneof(
    { weight, arbitrary: fc.constantFrom(...values).map((text) => ({ text, raw: false })) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom(...values), fc.nat(), fc.constantFrom('A', '.', '_', '')).map(([text, at, char]) => ({
        text: `${text.slice(0, at % (text.length + 1))}${char}${text.slice((at % (text.length + 1)) + 1)}`,
        raw: false,
      })),
    },
    { weight: 2, arbitrary: hostileString.map((text) => ({ text, raw: false })) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS).map((text) => ({ text, raw: true })) },
  );
}

export function pageRequests(arbs: Arbitraries, route: PageRoute): fc.Arbitrary<FuzzRequest> {
  const { m } = arbs;
  const names = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
  const csrf = route.cookie === 'spare' ? m.app.spare.csrf : m.app.main.csrf;
  const signName = `svc_sign_${m.signer.id}`;
  const cookie: fc.Arbitrary<string | undefined> =
    route.cookie === 'sign'
      ? fc.oneof(
          { weight: 6, arbitrary: fc.constant(m.signer.cookie) },
          { weight: 2, arbitrary: fc.constant(undefined) },
          {
            weight: 1,
            arbitrary: fc.constantFrom(
              `${signName}=x`,
              `${signName}=${m.app.main.cookie.split('=')[1]}`,
              `svc_sign_${m.signerIds[0]}=${m.signer.cookie.split('=')[1]}`,
              m.app.main.cookie,
              `${m.signer.cookie}; ${m.signer.cookie}x`,
            ),
          },
          { weight: 1, arbitrary: hostileString.map((text) => `${signName}=${text}`) },
        )
      : route.cookie === 'spare'
        ? fc.oneof(
            { weight: 3, arbitrary: fc.constant(m.app.spare.cookie) },
            { weight: 1, arbitrary: arbs.appCookie().filter((value) => value !== m.app.main.cookie) },
          )
        : arbs.appCookie();
  const query = route.query
    ? fc.oneof(
        {
          weight: 3,
          arbitrary: fc
            .record(
              Object.fromEntries(
                Object.entries(route.query).map(([name, arb]) => [
                  name,
                  fc.oneof(
                    arb,
                    hostileString.map((text) => segment(text, false)),
                  ),
                ]),
              ),
              { requiredKeys: [] },
            )
            .map((values) =>
              Object.entries(values)
                .map(([name, value]) => `${name}=${value}`)
                .join('&'),
            )
            .map((text) => (text ? `?${text}` : '')),
        },
        { weight: 1, arbitrary: arbs.query(undefined) },
      )
    : fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: arbs.query(undefined) });
  const body: fc.Arbitrary<Body> = route.form
    ? arbs.formBody(arbs.formFields(route.form.fields, csrf), route.form.files ?? [], route.form.limit ?? 64 * 1024)
    : route.json
      ? arbs.jsonBody(jsonSchemaOf(route.json))
      : fc.oneof({ weight: 6, arbitrary: fc.constant<Body>({}) }, { weight: 1, arbitrary: arbs.jsonBody(undefined) });
  return fc
    .record({
      method: arbs.method(route.method),
      params: fc.tuple(...names.map((name) => route.params?.[name] ?? segments(['x']))),
      query,
      cookie,
      origin: arbs.origin,
      extra: fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: arbs.extraHeaders() }),
      authorization: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arbs.authorization() }),
      body,
    })
    .map(({ method, params, query: search, cookie: sent, origin, extra, authorization, body: payload }) => {
      let path = route.path;
      names.forEach((name, index) => {
        path = path.replace(`:${name}`, () => segment(params[index].text, params[index].raw));
      });
      const headers: Record<string, string> = { ...extra };
      if (sent !== undefined) headers.cookie = sent;
      if (origin !== undefined) headers.origin = origin;
      if (authorization !== undefined) headers.authorization = authorization;
      return request(`${route.method} ${route.path}`, method, `${path}${search}`, headers, payload);
    });
}

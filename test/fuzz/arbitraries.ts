// The fuzzer's arbitraries over one run's material: headers (headers.ts), path segments and queries
// (paths.ts), bodies (bodies.ts, forms.ts), and the requests of one /v1 route of the registry.
import fc from 'fast-check';
import { z } from 'zod';
import type { RegisteredRoute } from '../../api/http/route';
import { dataUrl, TINY_GIF, TINY_JPEG } from '../images';
import * as bodies from './bodies';
import { segment } from './encodings';
import * as forms from './forms';
import * as headers from './headers';
import { hostileJson, hostileString } from './hostile';
import type { FuzzMaterial } from './material';
import * as paths from './paths';
import type { JsonSchema, Material } from './schema-values';
import type { FuzzRequest } from './send';

export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

/** The values a JSON body's fields are drawn from: the run's ids, e-mails, tokens, and fields that reach deep code. */
function valuesOf(m: FuzzMaterial): Material {
  const images = [
    dataUrl(m.images.png),
    dataUrl(m.images.bomb),
    dataUrl(TINY_JPEG, 'image/jpeg'),
    `data:image/png;base64,${m.images.png.subarray(0, 60).toString('base64')}`,
    `data:image/gif;base64,${TINY_GIF.toString('base64')}`,
  ];
  return {
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
    this.values = valuesOf(m);
    this.method = headers.requestMethod;
    this.origin = headers.originHeader(m.origin);
    this.bytes = bodies.fileBytes(m.images);
  }

  idOf(path: string): fc.Arbitrary<paths.Segment> {
    return paths.idOf(path, this.m.ids);
  }

  authorization(): fc.Arbitrary<string | undefined> {
    return headers.authorization(this.m.keys);
  }

  jsonBody(schema: JsonSchema | undefined): fc.Arbitrary<bodies.Body> {
    return bodies.jsonBody(this, schema);
  }

  query(schema: JsonSchema | undefined): fc.Arbitrary<string> {
    return paths.queryString(schema, this.m.ids);
  }

  extraHeaders(): fc.Arbitrary<Record<string, string>> {
    return headers.extraHeaders(this.origin);
  }

  /** Requests for one /v1 route of the registry: its method (mostly), path parameters, query, headers and body. */
  apiRoute(route: RegisteredRoute): fc.Arbitrary<FuzzRequest> {
    const { spec } = route;
    const names = [...spec.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
    const body = spec.body ? jsonSchemaOf(spec.body) : undefined;
    const query = spec.query ? jsonSchemaOf(spec.query) : undefined;
    const bodyArb = body
      ? this.jsonBody(body)
      : fc.oneof({ weight: 6, arbitrary: fc.constant<bodies.Body>({}) }, { weight: 1, arbitrary: this.jsonBody(undefined) });
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
        return bodies.request(
          group,
          method,
          `${path}${search}`,
          { ...extra, ...(authorization !== undefined ? { authorization } : {}), ...(cookie ? { cookie } : {}) },
          sent,
        );
      });
  }

  appCookie(): fc.Arbitrary<string | undefined> {
    return headers.appCookie(this.m);
  }

  formFields(fields: Record<string, fc.Arbitrary<string>>, csrf: string): fc.Arbitrary<Array<[string, string]>> {
    return forms.formFields(fields, csrf, this.m.app.spare.csrf);
  }

  formBody(fields: fc.Arbitrary<Array<[string, string]>>, fileNames: string[], limit: number): fc.Arbitrary<bodies.Body> {
    return forms.formBody(fields, fileNames, limit, this.bytes);
  }
}

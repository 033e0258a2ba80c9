// The request target's parts: resource ids and other path segments, and query strings.
import fc from 'fast-check';
import { RAW_SEGMENTS, segment } from './encodings';
import { hostileString } from './hostile';
import type { JsonSchema } from './schema-values';

export interface Segment {
  text: string;
  raw: boolean;
}

/**
 * A resource id for a path parameter: a real one of the kind the path names (the fuzzing tenant's or
 * another's), a real one of another kind, one of the right shape that exists nowhere, or garbage.
 */
export function idOf(path: string, ids: string[]): fc.Arbitrary<Segment> {
  const prefix = { documents: 'doc_', templates: 'tpl_', mandates: 'mdt_', webhooks: 'wh_', 'sign-requests': 'sr_' }[
    /^\/([\w-]+)/.exec(path)?.[1] ?? ''
  ];
  const kind = ids.filter((id) => prefix && id.startsWith(prefix));
  return fc.oneof(
    {
      weight: kind.length ? 6 : 0,
      arbitrary: fc.constantFrom(...(kind.length ? kind : ids)).map((text) => ({ text, raw: false })),
    },
    { weight: 3, arbitrary: fc.constantFrom(...ids).map((text) => ({ text, raw: false })) },
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

/** A path parameter drawn from `values`: mostly as given, sometimes a character off, hostile or raw. */
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

/** A query string from the schema's own names (and others), with values that are wrong in every way. */
export function queryString(schema: JsonSchema | undefined, ids: string[]): fc.Arbitrary<string> {
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
        id: fc.oneof(fc.constantFrom(...ids), hostileString),
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

// Hostile strings and JSON values: the shapes and texts that have broken parsers before.
import fc from 'fast-check';

/** Strings that have broken parsers, decoders, databases and templates before. */
const NASTY = [
  '',
  ' ',
  '.',
  '..',
  '../../../etc/passwd',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\udc00y',
  '%00',
  '%ff',
  '%',
  '%zz',
  '%2e%2e',
  '%2F',
  '\\',
  '/',
  '//',
  '?',
  '#',
  '&',
  '=',
  '\r\n',
  '\t',
  '\u0085',
  '\u2028',
  'null',
  'undefined',
  'true',
  'false',
  '0',
  '-1',
  '1e309',
  'NaN',
  'Infinity',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '<script>alert(1)</script>',
  "' OR '1'='1",
  '"; DROP TABLE documents; --',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, meant literally
  '${7*7}',
  '{{7*7}}',
  '\u202e',
  'é',
  'Ω',
  '😀',
  '\ufeff',
  '\uffff',
  '\u{10ffff}',
  '𝕏',
  'ß'.repeat(50),
  'a'.repeat(101),
  'a'.repeat(201),
  'a'.repeat(2001),
  'a'.repeat(70_000),
  'doc_',
  'tpl_',
  'svc_',
  'sgn_',
  'sgn_x.y',
  'sr_',
  'mdt_',
  'wh_',
  'doc_AAAAAAAAAAAAAAAAAAAA',
  'sgn_AAAAAAAAAAAAAAAAAAAA.AAAA',
  'x@y',
  'a@b.c',
  '@',
  'a@',
  '@b',
  'data:image/png;base64,',
  'data:image/png;base64,iVBORw0KGgo=',
  'https://',
  'https://127.0.0.1/',
  'http://example.com/',
  'javascript:alert(1)',
  'file:///etc/passwd',
  '9999-12-31',
  '0000-00-00',
  '2030-02-30',
  '+275760-09-13',
  '-000001-01-01',
  'L1',
  'L2',
  'L3',
  'both',
  'inbound',
  'outbound',
  'accepted',
  '1',
  '000000',
  '123456',
];

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
const anyUnit = fc.oneof(
  fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }),
  loneSurrogate,
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...NASTY) },
  // Names every object has: a lookup by a user's string in a plain object finds these.
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      'valueOf',
      'isPrototypeOf',
      '__defineGetter__',
    ),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: anyUnit, maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-composite', maxLength: 20 }) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(...NASTY), fc.string({ maxLength: 10 }), fc.constantFrom(...NASTY)).map((parts) => parts.join('')),
  },
);

/** `depth` arrays or objects inside each other. */
export function nested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const hostileNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, -1, 1.5, 2 ** 31, 2 ** 53 + 2, Number.MAX_VALUE, Number.MIN_VALUE, -Number.MAX_VALUE, 1e21, 7 * 24 * 3600 + 1),
);

/** Any JSON value, leaning to the shapes and texts that break things. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 1,
    arbitrary: fc
      .anything({ maxDepth: 2, maxKeys: 4, withObjectString: true, withNullPrototype: true })
      .map((value) => JSON.parse(JSON.stringify(value ?? null) ?? 'null')),
  },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, hostileString, { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 2, max: 60 }).map((depth) => JSON.parse(nested(depth, 'array'))) },
);

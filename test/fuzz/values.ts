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

export interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  default?: unknown;
}

/** What a generated value may be built from: real ids, tokens and e-mails of the fuzz run, by field name. */
export interface Material {
  ids: string[];
  emails: string[];
  tokens: string[];
  urls: string[];
  text: fc.Arbitrary<string>;
  /** Values for a named field that reach deep code (e.g. a real PNG data URL for `image`). */
  special?: Record<string, fc.Arbitrary<unknown>>;
}

/** A value that satisfies (or nearly satisfies) a JSON Schema, named fields drawn from the run's real material. */
export function plausible(schema: JsonSchema, material: Material, name = ''): fc.Arbitrary<unknown> {
  if (material.special?.[name]) return material.special[name];
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices?.length) return fc.oneof(...choices.map((choice) => plausible(choice, material, name)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const properties = schema.properties ?? {};
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, value] of Object.entries(properties)) model[key] = plausible(value, material, key);
      if (Object.keys(model).length === 0) return fc.constant({});
      return fc.record(model, { requiredKeys: (schema.required ?? []).filter((key) => key in model) });
    }
    case 'array':
      return fc.array(schema.items ? plausible(schema.items, material, name) : hostileJson, {
        minLength: Math.min(schema.minItems ?? 0, 3),
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case 'integer':
    case 'number':
      return fc.integer({ min: Math.max(schema.minimum ?? -1000, -1e9), max: Math.min(schema.maximum ?? 1000, 1e9) });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'string': {
      if (schema.format === 'email' || /email/.test(name)) return fc.constantFrom(...material.emails);
      if (/(^|_)ids?$/.test(name)) return fc.constantFrom(...material.ids);
      if (/token/.test(name)) return fc.constantFrom(...material.tokens);
      if (/url/.test(name)) return fc.constantFrom(...material.urls);
      return material.text.filter((text) => text.trim().length >= (schema.minLength ?? 0) && text.length <= (schema.maxLength ?? 200));
    }
    default:
      return hostileJson;
  }
}

type Path = Array<string | number>;

function pathsOf(value: unknown, path: Path = [], out: Path[] = []): Path[] {
  out.push(path);
  if (Array.isArray(value)) for (const [index, item] of value.entries()) pathsOf(item, [...path, index], out);
  else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) pathsOf(item, [...path, key], out);
  return out;
}

interface Mutation {
  pick: number;
  action: 'replace' | 'delete' | 'add' | 'wrap';
  key: string;
  value: unknown;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  pick: fc.nat(),
  action: fc.constantFrom('replace', 'replace', 'delete', 'add', 'wrap'),
  key: fc.oneof(hostileString, fc.constantFrom('__proto__', 'constructor', 'extra', 'id', 'limit')),
  value: hostileJson,
});

function applyMutation(root: unknown, { pick, action, key, value }: Mutation): unknown {
  const copy = structuredClone(root);
  const paths = pathsOf(copy);
  const path = paths[pick % paths.length];
  if (path.length === 0) return action === 'wrap' ? [copy] : action === 'replace' ? value : copy;
  const parent = path.slice(0, -1).reduce<any>((node, step) => node[step], copy);
  const last = path[path.length - 1];
  if (action === 'replace') parent[last] = value;
  else if (action === 'delete') Array.isArray(parent) ? parent.splice(Number(last), 1) : delete parent[last];
  else if (action === 'wrap') parent[last] = { [key]: parent[last] };
  else if (parent && typeof parent === 'object' && !Array.isArray(parent))
    Object.defineProperty(parent, key, { value, enumerable: true, configurable: true, writable: true });
  return copy;
}

/** The schema's plausible value with up to three hostile mutations (none a quarter of the time). */
export function mutated(schema: JsonSchema, material: Material): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      plausible(schema, material),
      fc.oneof({ weight: 1, arbitrary: fc.constant([]) }, { weight: 3, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) }),
    )
    .map(([value, mutations]) => mutations.reduce(applyMutation, value));
}

/** Raw JSON texts a JSON.stringify would never write: duplicate keys, out-of-range numbers, broken syntax. */
export function jsonText(value: unknown, trick: string, extra: string): string {
  const json = JSON.stringify(value) ?? 'null';
  switch (trick) {
    case 'duplicate-key':
      return json.startsWith('{') && json !== '{}'
        ? `${json.slice(0, -1)},${json.slice(1, json.indexOf(':'))}:${JSON.stringify(extra)}}`
        : `{"a":1,"a":${JSON.stringify(extra)}}`;
    case 'big-number':
      return json.replace(
        /(:|\[|,)(-?\d+(\.\d+)?|true|false|null|"[^"]*")/,
        `$1${['1e309', '-1e309', '1e-400', '123456789012345678901234567890', '-0', '9007199254740993', '0.1e1'][extra.length % 7]}`,
      );
    case 'truncated':
      return json.slice(0, Math.max(0, json.length - 1 - (extra.length % 5)));
    case 'trailing':
      return `${json}${['x', ',', '}', ' ', '\u0000', '\n{}'][extra.length % 6]}`;
    case 'bom':
      return `\ufeff${json}`;
    case 'single-quotes':
      return json.replace(/"/g, "'");
    case 'escapes':
      return json.replace(/"([^"]*)"/, `"$1\\ud800\\u0000\\uDFFF\\x41"`);
    case 'garbage':
      return extra;
    case 'deep-array':
      return nested(1000 + extra.length * 997, 'array');
    case 'deep-object':
      return nested(1000 + extra.length * 997, 'object');
    default:
      return json;
  }
}

export const JSON_TRICKS = [
  'duplicate-key',
  'big-number',
  'truncated',
  'trailing',
  'bom',
  'single-quotes',
  'escapes',
  'garbage',
  'deep-array',
  'deep-object',
] as const;

/** A path segment: percent-encoded as a client would, or left raw so the router sees what it sees. */
export function segment(value: string, raw: boolean): string {
  if (raw) return value;
  // Buffer writes a lone surrogate as U+FFFD, where encodeURIComponent would throw.
  return [...Buffer.from(value, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** Segments no well-behaved client sends: dot segments, broken or overlong escapes, encoded slashes. */
export const RAW_SEGMENTS = [
  '',
  '.',
  '..',
  '%00',
  '%ff',
  '%',
  '%zz',
  '%2e%2e',
  '%2E',
  '%2F',
  'a%2Fb',
  '%E2%82',
  '%C0%AE',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%u0000',
  'a%00b',
  '..%2F..',
  '%5C',
  ';',
  'x;y=z',
  '*',
];

export interface FormPart {
  name: string;
  value: string | Buffer;
  filename?: string;
  type?: string;
}

/** A multipart/form-data body (or a broken one), with its Content-Type. */
export function multipartBody(parts: FormPart[], options: { boundary: string; flaw: string }): { type: string; body: Buffer } {
  const { boundary, flaw } = options;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name.replace(/"/g, '%22')}"${part.filename !== undefined ? `; filename="${part.filename.replace(/"/g, '%22')}"` : ''}`;
    const headers = [
      `Content-Disposition: ${flaw === 'no-disposition' ? 'attachment' : disposition}`,
      ...(part.type ? [`Content-Type: ${part.type}`] : []),
    ];
    chunks.push(
      Buffer.from(`--${boundary}\r\n${headers.join('\r\n')}\r\n\r\n`, 'utf8'),
      Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value, 'utf8'),
      Buffer.from('\r\n'),
    );
  }
  if (flaw !== 'unterminated') chunks.push(Buffer.from(`--${boundary}--\r\n`));
  const type =
    flaw === 'no-boundary'
      ? 'multipart/form-data'
      : flaw === 'wrong-boundary'
        ? `multipart/form-data; boundary=${boundary}x`
        : flaw === 'quoted-boundary'
          ? `multipart/form-data; boundary="${boundary}"`
          : `multipart/form-data; boundary=${boundary}`;
  return { type, body: Buffer.concat(chunks) };
}

export const MULTIPART_FLAWS = [
  'none',
  'none',
  'none',
  'unterminated',
  'no-boundary',
  'wrong-boundary',
  'quoted-boundary',
  'no-disposition',
];

/** A seeded pseudo-random generator (mulberry32), for shuffling the requests of one seed the same way. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

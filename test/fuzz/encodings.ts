// Texts as they go on the wire, well formed or not: raw JSON, path segments, multipart bodies.
import { nested } from './hostile';

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

import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random base62 string: bytes >= 248 are rejected so every character is equally likely. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix =
  | 'ten'
  | 'prn'
  | 'key'
  | 'evt'
  | 'sgn'
  | 'apl'
  | 'aud'
  | 'msg'
  | 'otc'
  | 'ses'
  | 'dlv'
  | 'doc'
  | 'tpl'
  | 'sr'
  | 'mdt'
  | 'ct'
  | 'ofr'
  | 'xfr'
  | 'drv'
  | 'rcp'
  | 'wh'
  | 'blk'
  | 'oac'
  | 'grt'
  | 'mc'
  | 'sl';

/** Resource id: type prefix and 20 random base62 characters (about 119 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`;
}

export function newUuid(): string {
  return randomUUID();
}

export function sha256Hex(input: string | Buffer): string {
  return createHash('sha256').update(input).digest('hex');
}

/** Constant-time comparison of two strings (false on different lengths without an early exit on content). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

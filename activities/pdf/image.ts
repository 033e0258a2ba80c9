import zlib from 'node:zlib';
import { PDFDocument } from 'pdf-lib';

export type ImageKind = 'png' | 'jpeg';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
// A signature or initials image larger than this is refused rather than decoded into memory.
const MAX_PIXELS = 25_000_000;

/** Sniffs PNG/JPEG by magic bytes AND checks pdf-lib can actually embed it (a truncated or corrupt file is undefined). */
export async function readableImageKind(bytes: Uint8Array): Promise<ImageKind | undefined> {
  const kind = sniff(bytes);
  if (!kind || !(kind === 'png' ? isWholePng(bytes) : isWholeJpeg(bytes))) return undefined;
  try {
    const doc = await PDFDocument.create();
    await (kind === 'png' ? doc.embedPng(ownBuffer(bytes)) : doc.embedJpg(ownBuffer(bytes)));
    return kind;
  } catch {
    return undefined;
  }
}

/**
 * The bytes in an ArrayBuffer of their own: pdf-lib's JPEG reader views `bytes.buffer` from offset 0,
 * which misreads a Buffer sliced from Node's shared pool.
 */
export function ownBuffer(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}

function sniff(bytes: Uint8Array): ImageKind | undefined {
  if (bytes.length >= 8 && PNG_SIGNATURE.every((byte, i) => bytes[i] === byte)) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  return undefined;
}

/** Every chunk present with a good CRC, IHDR first, IEND last, and image data that inflates to its full size. */
function isWholePng(bytes: Uint8Array): boolean {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const data: Uint8Array[] = [];
  let header: { width: number; height: number; bitDepth: number; colorType: number; interlace: number } | undefined;
  for (let offset = 8; offset + 12 <= bytes.length; ) {
    const length = view.getUint32(offset);
    const end = offset + 12 + length;
    if (end > bytes.length) return false;
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    if (crc32(bytes.subarray(offset + 4, offset + 8 + length)) !== view.getUint32(offset + 8 + length)) return false;
    if (!header && type !== 'IHDR') return false;
    if (type === 'IHDR') {
      if (length < 13) return false;
      const at = offset + 8;
      header = { width: view.getUint32(at), height: view.getUint32(at + 4), bitDepth: bytes[at + 8], colorType: bytes[at + 9], interlace: bytes[at + 12] };
    } else if (type === 'IDAT') {
      data.push(bytes.subarray(offset + 8, offset + 8 + length));
    } else if (type === 'IEND') {
      return header !== undefined && data.length > 0 && inflatesToSize(Buffer.concat(data), header);
    }
    offset = end;
  }
  return false;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];

function inflatesToSize(compressed: Buffer, png: { width: number; height: number; bitDepth: number; colorType: number; interlace: number }): boolean {
  const channels = CHANNELS[png.colorType];
  if (!channels || png.width === 0 || png.height === 0 || png.width * png.height > MAX_PIXELS) return false;
  const bits = channels * png.bitDepth;
  const rowBytes = (width: number) => (width === 0 ? 0 : 1 + Math.ceil((width * bits) / 8));
  const passes = png.interlace ? ADAM7 : [[0, 0, 1, 1]];
  let expected = 0;
  for (const [x0, y0, dx, dy] of passes) {
    const width = Math.ceil((png.width - x0) / dx);
    const height = Math.ceil((png.height - y0) / dy);
    if (width > 0 && height > 0) expected += height * rowBytes(width);
  }
  try {
    return zlib.inflateSync(compressed, { maxOutputLength: expected + 1 }).length === expected;
  } catch {
    return false;
  }
}

/** Header segments well-formed up to the first scan, a frame header seen, and an end-of-image marker after the scan. */
function isWholeJpeg(bytes: Uint8Array): boolean {
  let frame = false;
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) return false;
    const marker = bytes[offset + 1];
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    const length = (bytes[offset + 2] << 8) | bytes[offset + 3];
    if (length < 2 || offset + 2 + length > bytes.length) return false;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = (bytes[offset + 5] << 8) | bytes[offset + 6];
      const width = (bytes[offset + 7] << 8) | bytes[offset + 8];
      if (width === 0 || height === 0 || width * height > MAX_PIXELS) return false;
      frame = true;
    }
    if (marker === 0xda) return frame && lastEndOfImage(bytes) > offset;
    offset += 2 + length;
  }
  return false;
}

function lastEndOfImage(bytes: Uint8Array): number {
  for (let i = bytes.length - 2; i >= 0; i -= 1) if (bytes[i] === 0xff && bytes[i + 1] === 0xd9) return i;
  return -1;
}

let crcTable: Uint32Array | undefined;

function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n += 1) {
      let c = n;
      for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

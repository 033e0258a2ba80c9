import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { t } from '../i18n';

export type ImageKind = 'png' | 'jpeg';

/**
 * Limits of a signature or initials image, read from its header before anything decodes it
 * (docs/decisions/0010-documents-and-signing.md): pdf-lib expands every PNG to 8-bit RGBA, so 4 megapixels bound that to 16 MB.
 */
export const MAX_IMAGE_PIXELS = 4_000_000;
/** Pixel data the header promises (rows × samples × bytes per sample: 16-bit images count double). */
export const MAX_IMAGE_PIXEL_BYTES = 16 * 1024 * 1024;

export interface ImageHeader {
  kind: ImageKind;
  width: number;
  height: number;
  pixelBytes: number;
}

export type ImageCheck = { kind: ImageKind } | { problem: 'unreadable' | 'too_large'; message: string };

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
function unreadable(): ImageCheck {
  return { problem: 'unreadable', message: t('errors.images.unreadable') };
}
const inflate = promisify(zlib.inflate);

/**
 * Whether the bytes are a whole PNG or JPEG within the limits. Nothing here decodes pixels: the
 * header gives the size, and a PNG's image data is inflated off the event loop (zlib's thread pool),
 * capped at the size its header promises.
 */
export async function checkImage(bytes: Uint8Array): Promise<ImageCheck> {
  const header = readImageHeader(bytes);
  if (!header) return unreadable();
  const tooLarge = sizeProblem(header);
  if (tooLarge) return { problem: 'too_large', message: tooLarge };
  const whole = header.kind === 'png' ? await isWholePng(bytes) : isWholeJpeg(bytes);
  return whole ? { kind: header.kind } : unreadable();
}

/** The kind of a whole PNG or JPEG within the limits; undefined for anything else. */
export async function readableImageKind(bytes: Uint8Array): Promise<ImageKind | undefined> {
  const checked = await checkImage(bytes);
  return 'kind' in checked ? checked.kind : undefined;
}

/** Why the image's header puts it past the limits, or undefined (also when there is no header to read). */
export function imageSizeProblem(bytes: Uint8Array): string | undefined {
  const header = readImageHeader(bytes);
  return header && sizeProblem(header);
}

function sizeProblem({ width, height, pixelBytes }: ImageHeader): string | undefined {
  if (width * height <= MAX_IMAGE_PIXELS && pixelBytes <= MAX_IMAGE_PIXEL_BYTES) return undefined;
  const mib = (pixelBytes / (1024 * 1024)).toFixed(1);
  const limits = { megapixels: MAX_IMAGE_PIXELS / 1_000_000, limitMib: MAX_IMAGE_PIXEL_BYTES / (1024 * 1024) };
  return t('errors.images.too_large', { width, height, mib, ...limits });
}

/**
 * The bytes in an ArrayBuffer of their own: pdf-lib's JPEG reader views `bytes.buffer` from offset 0,
 * which misreads a Buffer sliced from Node's shared pool.
 */
export function ownBuffer(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}

/** Samples per pixel of each PNG colour type, and the bit depths the PNG spec allows for it. */
const PNG_TYPES: Record<number, { channels: number; depths: number[] }> = {
  0: { channels: 1, depths: [1, 2, 4, 8, 16] },
  2: { channels: 3, depths: [8, 16] },
  3: { channels: 1, depths: [1, 2, 4, 8] },
  4: { channels: 2, depths: [8, 16] },
  6: { channels: 4, depths: [8, 16] },
};

interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlace: number;
}

/** Kind, dimensions and pixel bytes from the PNG IHDR or the JPEG SOF segment alone; undefined if unreadable. */
export function readImageHeader(bytes: Uint8Array): ImageHeader | undefined {
  if (bytes.length >= 8 && PNG_SIGNATURE.every((byte, i) => bytes[i] === byte)) {
    const png = pngHeader(bytes);
    if (!png) return undefined;
    return {
      kind: 'png',
      width: png.width,
      height: png.height,
      pixelBytes: png.height * Math.ceil((png.width * PNG_TYPES[png.colorType].channels * png.bitDepth) / 8),
    };
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return jpegHeader(bytes);
  return undefined;
}

function pngHeader(bytes: Uint8Array): PngHeader | undefined {
  if (bytes.length < 8 + 8 + 13) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(8) < 13 || String.fromCharCode(...bytes.subarray(12, 16)) !== 'IHDR') return undefined;
  const header = { width: view.getUint32(16), height: view.getUint32(20), bitDepth: bytes[24], colorType: bytes[25], interlace: bytes[28] };
  const type = PNG_TYPES[header.colorType];
  const valid =
    type?.depths.includes(header.bitDepth) &&
    header.width > 0 &&
    header.height > 0 &&
    bytes[26] === 0 &&
    bytes[27] === 0 &&
    header.interlace <= 1;
  return valid ? header : undefined;
}

/** SOF markers: C0–CF except DHT (C4), JPG (C8) and DAC (CC). */
function isFrameMarker(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpegHeader(bytes: Uint8Array): ImageHeader | undefined {
  for (let offset = 2; offset + 4 <= bytes.length; ) {
    if (bytes[offset] !== 0xff) return undefined;
    const marker = bytes[offset + 1];
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    const length = (bytes[offset + 2] << 8) | bytes[offset + 3];
    if (length < 2 || marker === 0xda) return undefined;
    if (isFrameMarker(marker)) {
      if (length < 8 || offset + 10 > bytes.length) return undefined;
      const precision = bytes[offset + 4];
      const height = (bytes[offset + 5] << 8) | bytes[offset + 6];
      const width = (bytes[offset + 7] << 8) | bytes[offset + 8];
      const components = bytes[offset + 9];
      if (width === 0 || height === 0 || components === 0) return undefined;
      return { kind: 'jpeg', width, height, pixelBytes: width * height * components * (precision > 8 ? 2 : 1) };
    }
    offset += 2 + length;
  }
  return undefined;
}

/** Every chunk present with a good CRC, IHDR first, IEND last, a palette where needed, and image data that inflates to its full size. */
async function isWholePng(bytes: Uint8Array): Promise<boolean> {
  const header = pngHeader(bytes);
  if (!header) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const data: Uint8Array[] = [];
  let palette = false;
  for (let offset = 8; offset + 12 <= bytes.length; ) {
    const length = view.getUint32(offset);
    const end = offset + 12 + length;
    if (end > bytes.length) return false;
    const type = String.fromCharCode(...bytes.subarray(offset + 4, offset + 8));
    if (crc32(bytes.subarray(offset + 4, offset + 8 + length)) !== view.getUint32(offset + 8 + length)) return false;
    if (type === 'PLTE') palette = true;
    else if (type === 'IDAT') data.push(bytes.subarray(offset + 8, offset + 8 + length));
    else if (type === 'IEND')
      return data.length > 0 && (header.colorType !== 3 || palette) && (await inflatesToSize(Buffer.concat(data), header));
    offset = end;
  }
  return false;
}

const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
];

async function inflatesToSize(compressed: Buffer, png: PngHeader): Promise<boolean> {
  const bits = PNG_TYPES[png.colorType].channels * png.bitDepth;
  const rowBytes = (width: number) => 1 + Math.ceil((width * bits) / 8);
  const passes = png.interlace ? ADAM7 : [[0, 0, 1, 1]];
  let expected = 0;
  for (const [x0, y0, dx, dy] of passes) {
    const width = Math.ceil((png.width - x0) / dx);
    const height = Math.ceil((png.height - y0) / dy);
    if (width > 0 && height > 0) expected += height * rowBytes(width);
  }
  try {
    // The async API inflates on the thread pool; one byte past the promised size is enough to refuse.
    return (await inflate(compressed, { maxOutputLength: expected + 1, chunkSize: 64 * 1024 })).length === expected;
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
    if (isFrameMarker(marker)) frame = true;
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

/** zlib's native CRC-32 where Node has it (20.15+), else a table in JS. */
function crc32(bytes: Uint8Array): number {
  if (typeof zlib.crc32 === 'function') return zlib.crc32(bytes);
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

import fs from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@pdf-lib/fontkit';
import type { PDFDocument, PDFFont } from 'pdf-lib';

export type FontName = 'DejaVuSans' | 'DejaVuSans-Bold';

const require = createRequire(import.meta.url);
// Read once per process: the TTF files are large and every apply embeds a subset of them.
const fileBytes = new Map<FontName, Uint8Array>();

function fontBytes(name: FontName): Uint8Array {
  let bytes = fileBytes.get(name);
  if (!bytes) {
    bytes = fs.readFileSync(require.resolve(`dejavu-fonts-ttf/ttf/${name}.ttf`));
    fileBytes.set(name, bytes);
  }
  return bytes;
}

/** Embeds a DejaVu font as a subset: Unicode names ("Šimůnek") that the standard 14 fonts cannot encode. */
export async function embedDejaVu(doc: PDFDocument, name: FontName = 'DejaVuSans'): Promise<PDFFont> {
  doc.registerFontkit(fontkit);
  return doc.embedFont(fontBytes(name), { subset: true });
}

/** The baseline that centres one line of `font` at `size` vertically in a box `height` tall. */
export function centredBaseline(font: PDFFont, size: number, height: number): number {
  const full = font.heightAtSize(size);
  const descent = full - font.heightAtSize(size, { descender: false });
  return (height - full) / 2 + descent;
}

/** The largest size from `max` down to `min` (half-point steps) at which `text` fits `width`, or undefined. */
export function sizeToFit(font: PDFFont, text: string, width: number, max: number, min: number): number | undefined {
  for (let size = max; size >= min; size -= 0.5) {
    if (font.widthOfTextAtSize(text, size) <= width) return size;
  }
  return undefined;
}

/** `text` cut at a grapheme boundary and ended with an ellipsis so that it fits `width` at `size`. */
export function truncateToFit(font: PDFFont, text: string, width: number, size: number): string {
  const graphemes = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((part) => part.segment);
  let low = 0;
  let high = graphemes.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (font.widthOfTextAtSize(`${graphemes.slice(0, middle).join('').trimEnd()}…`, size) <= width) low = middle;
    else high = middle - 1;
  }
  return `${graphemes.slice(0, low).join('').trimEnd()}…`;
}

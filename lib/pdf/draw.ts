import {
  clip,
  concatTransformationMatrix,
  endPath,
  LineCapStyle,
  type PDFFont,
  type PDFImage,
  type PDFPage,
  popGraphicsState,
  pushGraphicsState,
  rectangle,
  rgb,
} from 'pdf-lib';
import { centredBaseline, sizeToFit, truncateToFit } from './fonts';
import type { Matrix } from './geometry';

/** Dark blue-black, the colour of pen ink, so stamped marks read as filled in rather than printed. */
export const INK = rgb(0.06, 0.12, 0.33);
const MAX_TEXT_SIZE = 12;
const MIN_TEXT_SIZE = 6;

/** Runs `draw` in a box's own upright space, clipped to the box: nothing can land outside it. */
export function inBox(page: PDFPage, matrix: Matrix, width: number, height: number, draw: () => void): void {
  page.pushOperators(pushGraphicsState(), concatTransformationMatrix(...matrix), rectangle(0, 0, width, height), clip(), endPath());
  draw();
  page.pushOperators(popGraphicsState());
}

/** One line of text, shrunk from min(12, 70% of the height) down to 6 points, then cut with an ellipsis. */
export function drawFittedText(page: PDFPage, font: PDFFont, text: string, width: number, height: number, centred = false): void {
  const { line, x, y, size } = fitText(font, text, width, height, centred);
  page.drawText(line, { x, y, size, font, color: INK });
}

/** Where and how large drawFittedText sets a line in a box of this size. */
export function fitText(font: PDFFont, text: string, width: number, height: number, centred = false) {
  const pad = Math.min(2, width * 0.05);
  const room = width - 2 * pad;
  const max = Math.min(MAX_TEXT_SIZE, height * 0.7);
  const min = Math.min(MIN_TEXT_SIZE, max);
  let size = sizeToFit(font, text, room, max, min);
  let line = text;
  if (size === undefined) {
    size = min;
    line = truncateToFit(font, text, room, size);
  }
  const x = centred ? (width - font.widthOfTextAtSize(line, size)) / 2 : pad;
  return { line, x, y: centredBaseline(font, size, height), size };
}

/** An image scaled to fit with its aspect ratio kept, centred. */
export function drawFittedImage(page: PDFPage, image: PDFImage, width: number, height: number): void {
  const pad = Math.min(2, width * 0.05, height * 0.05);
  const scale = Math.min((width - 2 * pad) / image.width, (height - 2 * pad) / image.height);
  const w = image.width * scale;
  const h = image.height * scale;
  page.drawImage(image, { x: (width - w) / 2, y: (height - h) / 2, width: w, height: h });
}

/** A tick drawn with two strokes, centred in a square of 70% of the box's shorter side. */
export function drawCheckMark(page: PDFPage, width: number, height: number): void {
  const side = Math.min(width, height) * 0.7;
  const left = (width - side) / 2;
  const bottom = (height - side) / 2;
  const at = (fx: number, fy: number) => ({ x: left + fx * side, y: bottom + fy * side });
  const stroke = { thickness: Math.max(0.75, side * 0.12), color: INK, lineCap: LineCapStyle.Round };
  page.drawLine({ start: at(0.08, 0.5), end: at(0.38, 0.15), ...stroke });
  page.drawLine({ start: at(0.38, 0.15), end: at(0.92, 0.88), ...stroke });
}

/**
 * A radio group: its options one under another, each a ring and its words, the chosen one's ring
 * filled. Each row takes an equal share of the box's height.
 */
export function drawChoices(page: PDFPage, font: PDFFont, options: string[], chosen: string, width: number, height: number): void {
  const row = height / options.length;
  const radius = Math.max(1, Math.min(row * 0.32, 6, width * 0.1));
  const pad = Math.min(2, width * 0.05);
  const textLeft = pad + 2 * radius + Math.min(4, radius);
  options.forEach((option, index) => {
    const bottom = height - (index + 1) * row;
    const centre = { x: pad + radius, y: bottom + row / 2 };
    page.drawCircle({ ...centre, size: radius, borderColor: INK, borderWidth: Math.max(0.5, radius * 0.18) });
    if (option === chosen) page.drawCircle({ ...centre, size: radius * 0.55, color: INK });
    page.pushOperators(pushGraphicsState(), concatTransformationMatrix(1, 0, 0, 1, textLeft, bottom));
    drawFittedText(page, font, option, Math.max(1, width - textLeft), row);
    page.pushOperators(popGraphicsState());
  });
}

import { type Color, type PDFDocument, type PDFFont, type PDFPage, rgb } from 'pdf-lib';

export interface Margins {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

export interface LineStyle {
  font: PDFFont;
  size: number;
  /** Baseline-to-baseline distance; 1.3 × size unless given. */
  leading?: number;
  color?: Color;
  indent?: number;
}

/** Lines of text poured down pages top to bottom, a new page (same size) when one is full. */
export class TextFlow {
  readonly pages: PDFPage[] = [];
  page!: PDFPage;
  /** Baseline of the last line, in PDF user space (y up). */
  y = 0;

  constructor(
    private readonly doc: PDFDocument,
    private readonly size: [number, number],
    readonly margins: Margins,
    private readonly onNewPage: (flow: TextFlow) => void = () => undefined,
  ) {
    this.newPage();
  }

  get width(): number {
    return this.size[0] - this.margins.left - this.margins.right;
  }

  /** Room left above the bottom margin. */
  get room(): number {
    return this.y - this.margins.bottom;
  }

  newPage(): void {
    this.page = this.doc.addPage(this.size);
    this.pages.push(this.page);
    this.y = this.size[1] - this.margins.top;
    this.onNewPage(this);
  }

  /** Starts a new page unless `height` more points fit on this one (a page's first lines always stay). */
  keep(height: number): void {
    if (height > this.room && this.y < this.size[1] - this.margins.top) this.newPage();
  }

  space(points: number): void {
    this.y -= points;
  }

  /** Height that `lines` lines take in `style`. */
  static height(lines: number, style: LineStyle): number {
    return lines * (style.leading ?? style.size * 1.3);
  }

  /** Moves down to the next baseline in `style`, on a new page when this one is full. */
  advance(style: LineStyle): void {
    const leading = style.leading ?? style.size * 1.3;
    this.keep(leading);
    this.y -= leading;
  }

  /** One line as given (no wrapping), breaking the page first when it does not fit. */
  line(text: string, style: LineStyle): void {
    this.advance(style);
    this.page.drawText(text, {
      x: this.margins.left + (style.indent ?? 0),
      y: this.y,
      size: style.size,
      font: style.font,
      color: style.color ?? rgb(0, 0, 0),
    });
  }

  /** Text wrapped at word boundaries to the flow's width, optionally led by a run-in heading in another font. */
  paragraph(text: string, style: LineStyle, lead?: { text: string; font: PDFFont }): void {
    const width = this.width - (style.indent ?? 0);
    const leadWidth = lead ? lead.font.widthOfTextAtSize(lead.text, style.size) : 0;
    for (const [index, line] of wrap(text, style.font, style.size, width, width - leadWidth).entries()) {
      if (index > 0 || !lead) {
        this.line(line, style);
        continue;
      }
      this.advance(style);
      const x = this.margins.left + (style.indent ?? 0);
      const color = style.color ?? rgb(0, 0, 0);
      this.page.drawText(lead.text, { x, y: this.y, size: style.size, font: lead.font, color });
      this.page.drawText(line, { x: x + leadWidth, y: this.y, size: style.size, font: style.font, color });
    }
  }
}

/**
 * Splits text into lines no wider than `width` (the first `firstWidth`); a word longer than a line is
 * cut between graphemes. Words are measured once and summed: measuring each growing line is quadratic.
 */
export function wrap(text: string, font: PDFFont, size: number, width: number, firstWidth = width): string[] {
  const lines: string[] = [];
  const limit = () => (lines.length === 0 ? firstWidth : width);
  const measure = (part: string) => font.widthOfTextAtSize(part, size);
  const space = measure(' ');
  let current = '';
  let currentWidth = 0;
  for (const word of text.split(/\s+/u).filter(Boolean)) {
    const wordWidth = measure(word);
    if (current && currentWidth + space + wordWidth <= limit()) {
      current += ` ${word}`;
      currentWidth += space + wordWidth;
      continue;
    }
    if (current) lines.push(current);
    current = '';
    for (const piece of breakWord(word, (candidate) => measure(candidate) <= limit())) {
      if (current) lines.push(current);
      current = piece;
    }
    currentWidth = measure(current);
  }
  if (current || lines.length === 0) lines.push(current);
  return lines;
}

function breakWord(word: string, fits: (text: string) => boolean): string[] {
  if (fits(word)) return [word];
  const pieces: string[] = [];
  let piece = '';
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(word)) {
    if (piece && !fits(piece + segment)) {
      pieces.push(piece);
      piece = '';
    }
    piece += segment;
  }
  if (piece) pieces.push(piece);
  return pieces;
}

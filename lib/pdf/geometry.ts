import type { PDFPage } from 'pdf-lib';

/** A PDF transformation matrix [a b c d e f]: x' = a·x + c·y + e, y' = b·x + d·y + f. */
export type Matrix = [number, number, number, number, number, number];

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Page rotation as one of 0, 90, 180, 270 (a PDF /Rotate is a multiple of 90, possibly negative). */
function rotation(page: PDFPage): number {
  return (((Math.round(page.getRotation().angle / 90) * 90) % 360) + 360) % 360;
}

/** The page's size as a reader shows it: its crop box, turned by /Rotate. */
export function displayedSize(page: PDFPage): { width: number; height: number } {
  const { width, height } = page.getCropBox();
  return rotation(page) % 180 === 0 ? { width, height } : { width: height, height: width };
}

/**
 * The matrix from a box's own space (origin at its bottom-left, upright as displayed) to the page's
 * user space, for a box given from the displayed top-left: widgets are placed on the page as seen.
 */
export function boxMatrix(page: PDFPage, box: Box): Matrix {
  const crop = page.getCropBox();
  const shown = displayedSize(page);
  const u = box.x;
  const v = shown.height - box.y - box.height;
  const [a, b, c, d, e, f] = displayedToUser(rotation(page), crop);
  return [a, b, c, d, a * u + c * v + e, b * u + d * v + f];
}

/** Displayed space (origin bottom-left of the page as shown) to user space, per /Rotate (clockwise). */
function displayedToUser(angle: number, crop: Box): Matrix {
  switch (angle) {
    case 90:
      return [0, 1, -1, 0, crop.x + crop.width, crop.y];
    case 180:
      return [-1, 0, 0, -1, crop.x + crop.width, crop.y + crop.height];
    case 270:
      return [0, -1, 1, 0, crop.x, crop.y + crop.height];
    default:
      return [1, 0, 0, 1, crop.x, crop.y];
  }
}

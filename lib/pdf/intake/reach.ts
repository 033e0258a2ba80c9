// What a reader can reach from the trailer, walked without recursion (a hostile PDF nests deeper
// than any call stack), and the removal of everything else before the PDF is written again.
import { PDFArray, type PDFContext, PDFDict, PDFInvalidObject, type PDFObject, PDFRef, PDFStream } from 'pdf-lib';
import { t } from '../../i18n';
import { refuse } from './refuse';

// Real PDFs nest direct objects a few levels deep; pdf-lib writes (and readers parse) them recursively.
export const MAX_NESTING = 256;

/**
 * Visits every dictionary and array reachable from the trailer's /Root and /Info, with its depth of
 * direct nesting; refuses an object pdf-lib could not parse, and nesting past MAX_NESTING. Answers the
 * references reached.
 */
export function walkReachable(context: PDFContext, visit?: (object: PDFDict | PDFArray) => void): Set<PDFRef> {
  const reached = new Set<PDFRef>();
  const stack: Array<[PDFObject | undefined, number]> = [
    [context.trailerInfo.Root, 0],
    [context.trailerInfo.Info, 0],
  ];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [object, depth] = item;
    if (object instanceof PDFRef) {
      if (reached.has(object)) continue;
      reached.add(object);
      stack.push([context.lookup(object), 0]);
    } else if (object instanceof PDFInvalidObject) {
      throw refuse(t('errors.pdf.objects_cannot_read_malformed'));
    } else if (object instanceof PDFDict || object instanceof PDFArray) {
      if (depth > MAX_NESTING) throw refuse(t('errors.pdf.nests_objects_more_than', { maxNesting: MAX_NESTING }));
      visit?.(object);
      const values = object instanceof PDFDict ? object.values() : object.asArray();
      for (const value of values) stack.push([value, depth + 1]);
    } else if (object instanceof PDFStream) {
      stack.push([object.dict, depth]);
    }
  }
  return reached;
}

/** Deletes every indirect object the trailer cannot reach: what was stripped leaves the file, not just the tree. */
export function dropUnreachable(context: PDFContext): number {
  const reached = walkReachable(context);
  let dropped = 0;
  for (const [ref] of context.enumerateIndirectObjects()) {
    if (!reached.has(ref)) {
      context.delete(ref);
      dropped++;
    }
  }
  return dropped;
}

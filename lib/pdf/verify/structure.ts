// What one revision of a document is made of, for comparing two: which objects a reader reaches from
// the trailer, the page tree, the form's field tree and each page's annotations.
import type { PdfDict, PdfValue } from './objects';
import { get, nameOf, numberOf, refsIn, textOf } from './values';
import { type DocumentState, refsOf as objectRefs } from './xref';

// Bounds on a hostile document's trees (the object limit of the intake bounds the rest).
const MAX_DEPTH = 64;

export interface FieldNode {
  num: number;
  /** Full name; a bare widget carries its field's. */
  name: string;
  type?: string;
  /** A widget annotation with no field of its own (a kid of its field). */
  widgetOnly: boolean;
  dict: PdfDict;
}

/**
 * A set of object numbers: a byte per number below a bound (a walk of a large document tests and adds
 * hundreds of thousands of them), a Set past it (a hostile file may number an object 10^15).
 */
export class NumberSet implements Iterable<number> {
  private bits = new Uint8Array(256);
  private readonly large = new Set<number>();
  private readonly members: number[] = [];
  private static readonly DENSE = 1 << 23;

  has(num: number): boolean {
    return num < NumberSet.DENSE ? num < this.bits.length && this.bits[num] === 1 : this.large.has(num);
  }

  add(num: number): boolean {
    if (this.has(num)) return false;
    if (num < NumberSet.DENSE) {
      if (num >= this.bits.length) {
        const grown = new Uint8Array(Math.min(NumberSet.DENSE, Math.max(num + 1, this.bits.length * 2)));
        grown.set(this.bits);
        this.bits = grown;
      }
      this.bits[num] = 1;
    } else this.large.add(num);
    this.members.push(num);
    return true;
  }

  get size(): number {
    return this.members.length;
  }

  [Symbol.iterator](): Iterator<number> {
    return this.members[Symbol.iterator]();
  }
}

export interface Layout {
  reach: NumberSet;
  /** Page object numbers in page order (1-based index). */
  pages: Map<number, number>;
  /** Objects of the page tree that are not pages (the /Pages nodes). */
  pageNodes: Set<number>;
  fields: Map<number, FieldNode>;
  /** Top-level field references of the AcroForm's /Fields, in order. */
  topFields: number[];
  /** The page number whose /Contents includes each content stream. */
  contentOf: Map<number, number>;
}

const layouts = new WeakMap<DocumentState, Layout>();

/** The layout of `state`, computed once: reading it parses every reachable object (StructureError when one cannot be read). */
export function layoutOf(state: DocumentState): Layout {
  const cached = layouts.get(state);
  if (cached) return cached;
  const layout: Layout = {
    reach: reachable(state, trailerRefs(state)),
    pages: new Map(),
    pageNodes: new Set(),
    fields: new Map(),
    topFields: [],
    contentOf: new Map(),
  };
  const catalog = state.resolve(state.root);
  collectPages(state, get(catalog, 'Pages'), layout, 0);
  for (const [page, index] of layout.pages) {
    for (const ref of refsOf(state, get(state.object(page)?.value, 'Contents'))) layout.contentOf.set(ref, index);
  }
  const fields = state.resolve(get(state.resolve(get(catalog, 'AcroForm')), 'Fields'));
  layout.topFields = refsOf(state, fields, false);
  for (const num of layout.topFields) collectFields(state, num, undefined, undefined, layout, 0);
  layouts.set(state, layout);
  return layout;
}

export function trailerRefs(state: DocumentState): Array<{ num: number; key: string }> {
  const refs: Array<{ num: number; key: string }> = [];
  for (const [key, value] of state.trailer.v)
    if (key !== 'Prev' && key !== 'XRefStm') for (const num of refsIn(value).nums) refs.push({ num, key });
  return refs;
}

/** The objects reachable from `starts`, not following an edge `cut(parent, key, target)` refuses. */
export function reachable(
  state: DocumentState,
  starts: Array<{ num: number; key: string }>,
  options: { cut?: (parent: number, key: string, target: number) => boolean } = {},
): NumberSet {
  const reached = new NumberSet();
  const stack: number[] = [];
  const cut = options.cut;
  for (const start of starts) if (!cut?.(-1, start.key, start.num) && reached.add(start.num)) stack.push(start.num);
  while (stack.length > 0) {
    const num = stack.pop()!;
    const object = state.object(num);
    if (!object) continue;
    const { nums, keys } = objectRefs(object);
    for (let index = 0; index < nums.length; index++) {
      const target = nums[index];
      if (reached.has(target) || cut?.(num, keys[index], target)) continue;
      reached.add(target);
      stack.push(target);
    }
  }
  return reached;
}

/** The object numbers a value names: itself when a reference, or the references of the array it is (or resolves to). */
export function refsOf(state: DocumentState, value: PdfValue | undefined, resolveArray = true): number[] {
  if (value?.t === 'ref') {
    const target = resolveArray ? state.resolve(value) : undefined;
    if (target?.t === 'array') return target.v.flatMap((item) => (item.t === 'ref' ? [item.num] : []));
    return [value.num];
  }
  if (value?.t === 'array') return value.v.flatMap((item) => (item.t === 'ref' ? [item.num] : []));
  return [];
}

function collectPages(state: DocumentState, value: PdfValue | undefined, layout: Layout, depth: number): void {
  if (value?.t !== 'ref' || depth > MAX_DEPTH || layout.pages.has(value.num) || layout.pageNodes.has(value.num)) return;
  const node = state.object(value.num)?.value;
  if (node?.t !== 'dict') return;
  if (nameOf(node.v.get('Type')) === 'Pages' || node.v.has('Kids')) {
    layout.pageNodes.add(value.num);
    const kids = state.resolve(node.v.get('Kids'));
    if (kids?.t === 'array') for (const kid of kids.v) collectPages(state, kid, layout, depth + 1);
  } else layout.pages.set(value.num, layout.pages.size + 1);
}

function collectFields(
  state: DocumentState,
  num: number,
  parentName: string | undefined,
  parentType: string | undefined,
  layout: Layout,
  depth: number,
): void {
  if (depth > MAX_DEPTH || layout.fields.has(num)) return;
  const dict = state.object(num)?.value;
  if (dict?.t !== 'dict') return;
  const partial = textOf(dict.v.get('T'));
  const name = partial === undefined ? (parentName ?? '') : parentName ? `${parentName}.${partial}` : partial;
  const type = nameOf(dict.v.get('FT')) ?? parentType;
  const widgetOnly = partial === undefined && depth > 0 && nameOf(dict.v.get('Subtype')) === 'Widget';
  layout.fields.set(num, { num, name, type, widgetOnly, dict });
  for (const kid of refsOf(state, dict.v.get('Kids'))) collectFields(state, kid, name, type, layout, depth + 1);
}

/** Markup annotations (PDF 2.0 12.5.6.2): what commenting adds, and the only annotations DocMDP P=3 permits. */
export const MARKUP = new Set([
  'Text',
  'FreeText',
  'Line',
  'Square',
  'Circle',
  'Polygon',
  'PolyLine',
  'Highlight',
  'Underline',
  'Squiggly',
  'StrikeOut',
  'Caret',
  'Ink',
  'Popup',
  'Stamp',
]);

/** An annotation that shows nothing: a zero-size rectangle, or hidden. */
export function invisible(dict: PdfValue | undefined): boolean {
  const rect = get(dict, 'Rect');
  const numbers = rect?.t === 'array' ? rect.v.map((item) => numberOf(item) ?? 0) : [0, 0, 0, 0];
  const flags = numberOf(get(dict, 'F')) ?? 0;
  return Math.abs((numbers[2] - numbers[0]) * (numbers[3] - numbers[1])) === 0 || (flags & 0x22) !== 0;
}

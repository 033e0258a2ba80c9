// What a revision changed after the one before it, computed object by object and judged by what each
// change is (after pyHanko's difference analysis, reject by default): the validation data of long-term
// signatures, a new signature, a form field's value, a comment, or anything else. Every object a reader
// reaches in the newer revision whose content differs must be explained by one rule; an object that is
// only reachable through a permitted addition (the appearance of a new signature, the DSS) is explained
// by that addition, and everything the document itself displays must not have changed.
import { get, nameOf, numberOf, type PdfDict, type PdfValue, sameValue } from './objects';
import { invisible, type Layout, layoutOf, MARKUP, reachable, refsOf, trailerRefs } from './structure';
import { type DocumentState, StructureError } from './xref';

/** How far a change goes, in the order of DocMDP's permissions (after pyHanko's ModificationLevel). */
export type ChangeLevel = 'lta' | 'signing' | 'form_fill' | 'annotation' | 'other';
export const LEVELS: ChangeLevel[] = ['lta', 'signing', 'form_fill', 'annotation', 'other'];

export interface Change {
  level: ChangeLevel;
  what: string;
}

export interface RevisionChanges {
  /** The revision (1-based) that made the changes. */
  revision: number;
  changes: Change[];
  /** Full names of the form fields whose value it set. */
  fields: string[];
}

/** The highest level of a list of changes, or undefined for none. */
export function levelOf(changes: Change[]): ChangeLevel | undefined {
  let best = -1;
  for (const change of changes) best = Math.max(best, LEVELS.indexOf(change.level));
  return best < 0 ? undefined : LEVELS[best];
}

/** The changes `after` made to `before` (consecutive revisions of one file). */
export function compareRevisions(before: DocumentState, after: DocumentState, revision: number): RevisionChanges {
  const result: RevisionChanges = { revision, changes: [], fields: [] };
  const add = (level: ChangeLevel, what: string) => {
    if (result.changes.length < 50) result.changes.push({ level, what });
  };
  try {
    compare(before, after, add, result.fields);
  } catch (error) {
    if (!(error instanceof StructureError)) throw error;
    add('other', `it cannot be read as its cross-reference data says (${error.message})`);
  }
  return result;
}

type Add = (level: ChangeLevel, what: string) => void;

function compare(a: DocumentState, b: DocumentState, add: Add, fields: string[]): void {
  const rootA = a.root;
  const rootB = b.root;
  if (rootB?.t !== 'ref' || rootA?.t !== 'ref' || rootA.num !== rootB.num) {
    add('other', 'the document catalog was replaced (the trailer names another /Root)');
    return;
  }
  if (!sameValue(a.trailer.v.get('Encrypt'), b.trailer.v.get('Encrypt'))) {
    add('other', 'the encryption dictionary changed');
    return;
  }

  const changed = new Set<number>();
  const candidates: number[] = [];
  for (const [num, entry] of b.entries) {
    // The same entry object is the same section's entry: the same bytes (an object stream's own place aside).
    if (a.entries.get(num) === entry && entry.type !== 'compressed') continue;
    if (a.keyOf(num) !== b.keyOf(num)) candidates.push(num);
  }
  for (const num of a.entries.keys()) if (!b.entries.has(num)) candidates.push(num);
  for (const num of candidates) {
    let before: PdfValue | undefined;
    try {
      before = a.object(num)?.value;
    } catch {
      before = undefined; // unreadable before: whatever it is now is new
    }
    if (!sameValue(before, b.object(num)?.value)) changed.add(num);
  }
  const infoNum = refNum(b.trailer.v.get('Info'));
  const infoChanged = !sameValue(a.trailer.v.get('Info'), b.trailer.v.get('Info'));
  if (changed.size === 0 && !infoChanged) return;

  const la = layoutOf(a);
  const lb = layoutOf(b);
  const isNew = (num: number) => !la.reach.has(num);
  const catalog = rootB.num;
  const explained = new Map<number, ChangeLevel>();
  const explain = (num: number, level: ChangeLevel) => explained.set(num, max(explained.get(num), level));
  // Additions a reader reaches only through them: their subtrees are judged at their level.
  const allowedRoots: Root[] = [];
  const cutEdges = new Set<string>();
  const cut = (parent: number, key: string) => cutEdges.add(`${parent}/${key}`);

  // The form: new signature fields may be added, existing ones filled; nothing removed.
  const newSignatureFields = new Map<number, ChangeLevel>();
  for (const num of lb.topFields) {
    if (la.topFields.includes(num)) continue;
    const field = lb.fields.get(num);
    if (field?.type !== 'Sig' || !isNew(num)) {
      add('other', `a form field was added (${describe(b, lb, num)})`);
      continue;
    }
    const level = signatureLevel(b, field.dict);
    newSignatureFields.set(num, level);
    for (const widget of refsOf(b, field.dict.v.get('Kids'))) newSignatureFields.set(widget, level);
    add(level, level === 'lta' ? 'a document timestamp was added' : `a signature field "${field.name}" was added`);
  }
  for (const num of la.topFields) if (!lb.topFields.includes(num)) add('other', `the form field "${la.fields.get(num)?.name}" was removed`);
  // New objects only: no unchanged object of the signed revision can reach them.
  for (const [num, level] of newSignatureFields) allowedRoots.push({ num, level, byTarget: true });
  const valued = valuedFields(a, la, lb, changed);

  for (const num of changed) {
    if (!lb.reach.has(num)) continue;
    if (num === catalog) compareCatalog(a, b, add, explain, cut, catalog, allowedRoots);
    else if (num === refNum(get(b.resolve(rootB), 'AcroForm')))
      compareForm(a.resolve(get(a.resolve(rootA), 'AcroForm')), b.object(num)?.value, add, num, explain);
    else if (lb.pages.has(num) && la.pages.has(num)) comparePage(a, b, la, lb, num, add, explain, newSignatureFields, allowedRoots);
    else if (la.fields.has(num) && lb.fields.has(num)) compareField(a, b, lb, num, valued, add, explain, cut, allowedRoots, fields);
  }
  // Arrays held by reference (/Fields, a page's /Annots) change with what they list, judged above.
  const fieldsArray = refNum(get(b.resolve(get(b.resolve(rootB), 'AcroForm')), 'Fields'));
  if (fieldsArray !== undefined && changed.has(fieldsArray)) explain(fieldsArray, 'lta');
  for (const page of lb.pages.keys()) {
    const annots = refNum(get(b.object(page)?.value, 'Annots'));
    if (annots !== undefined && changed.has(annots) && la.pages.has(page)) {
      compareAnnotations(a, b, la, page, add, explain, newSignatureFields, allowedRoots);
      explain(annots, 'lta');
    }
  }
  if (infoNum !== undefined) allowedRoots.push({ num: infoNum, level: 'lta', byTarget: false });
  cut(-1, 'Info');

  // What the document itself displays: everything reachable but through the permitted additions.
  const pending = [...changed].filter((num) => lb.reach.has(num) && !explained.has(num));
  if (pending.length === 0) return;
  const cutTargets = new Set(allowedRoots.filter((root) => root.byTarget).map((root) => root.num));
  // With no permitted addition, all a reader reaches is the document itself: no second walk.
  const core =
    allowedRoots.length === 0
      ? lb.reach
      : reachable(b, trailerRefs(b), {
          cut: (parent, key, target) => cutEdges.has(`${parent}/${key}`) || cutTargets.has(target),
        });
  const subtreeLevel = new Map<number, ChangeLevel>();
  for (const root of allowedRoots) {
    for (const num of reachable(b, [{ num: root.num, key: '' }], { cut: (_parent, _key, target) => core.has(target) })) {
      subtreeLevel.set(num, max(subtreeLevel.get(num), root.level));
    }
  }
  for (const num of pending) {
    const level = core.has(num) ? undefined : subtreeLevel.get(num);
    if (level) explain(num, level);
    else add('other', `${describe(b, lb, num)} ${isNew(num) ? 'was added' : 'changed'}`);
  }
}

/** A permitted addition: an object whose subtree (what only it reaches) is judged at `level`; a new object is cut from everywhere, an old one only at the edge its rule cut. */
interface Root {
  num: number;
  level: ChangeLevel;
  byTarget: boolean;
}

function max(a: ChangeLevel | undefined, b: ChangeLevel): ChangeLevel {
  return a === undefined || LEVELS.indexOf(b) > LEVELS.indexOf(a) ? b : a;
}

function refNum(value: PdfValue | undefined): number | undefined {
  return value?.t === 'ref' ? value.num : undefined;
}

/** A document timestamp that shows nothing is validation data; any other signature is signing. */
function signatureLevel(state: DocumentState, field: PdfDict): ChangeLevel {
  const value = state.resolve(field.v.get('V'));
  const timestamp = nameOf(get(value, 'Type')) === 'DocTimeStamp' || nameOf(get(value, 'SubFilter')) === 'ETSI.RFC3161';
  const widgets = refsOf(state, field.v.get('Kids')).map((num) => state.object(num)?.value);
  const shows = (nameOf(field.v.get('Subtype')) === 'Widget' ? [field] : widgets).some((widget) => !invisible(widget));
  return timestamp && !shows ? 'lta' : 'signing';
}

const CATALOG_LTA = new Set(['DSS', 'Extensions', 'Version', 'MarkInfo', 'Metadata']);

function compareCatalog(
  a: DocumentState,
  b: DocumentState,
  add: Add,
  explain: (num: number, level: ChangeLevel) => void,
  cut: (parent: number, key: string) => void,
  catalog: number,
  roots: Root[],
): void {
  const before = a.resolve(a.root);
  const after = b.resolve(b.root);
  if (before?.t !== 'dict' || after?.t !== 'dict') {
    add('other', 'the document catalog is not a dictionary');
    return;
  }
  let level: ChangeLevel = 'lta';
  for (const key of new Set([...before.v.keys(), ...after.v.keys()])) {
    if (sameValue(before.v.get(key), after.v.get(key))) continue;
    if (CATALOG_LTA.has(key)) {
      cut(catalog, key);
      const target = refNum(after.v.get(key));
      if (target !== undefined) roots.push({ num: target, level: 'lta', byTarget: false });
      if (key === 'DSS') add('lta', 'validation data (a DSS) was added');
    } else if (key === 'AcroForm' && after.v.get(key)?.t === 'dict') {
      level = max(level, compareForm(before.v.get(key), after.v.get(key), add));
    } else if (key === 'AcroForm' && before.v.get(key) === undefined && after.v.get(key)?.t === 'ref') {
      level = max(level, compareForm(undefined, b.resolve(after.v.get(key)), add, refNum(after.v.get(key)), explain));
    } else add('other', `the document catalog's /${key} changed`);
  }
  explain(catalog, level);
}

/** The AcroForm dictionary: its /Fields are judged with the field tree; the signature flags are bookkeeping. */
function compareForm(
  before: PdfValue | undefined,
  after: PdfValue | undefined,
  add: Add,
  num?: number,
  explain?: (num: number, level: ChangeLevel) => void,
): ChangeLevel {
  let level: ChangeLevel = 'lta';
  const keys = new Set([...(before?.t === 'dict' ? before.v.keys() : []), ...(after?.t === 'dict' ? after.v.keys() : [])]);
  for (const key of keys) {
    if (sameValue(get(before, key), get(after, key)) || key === 'Fields' || key === 'SigFlags') continue;
    if (key === 'NeedAppearances' || key === 'DR' || key === 'DA') level = max(level, 'form_fill');
    else {
      add('other', `the form's /${key} changed`);
      level = 'other';
    }
  }
  if (num !== undefined) explain?.(num, level);
  return level;
}

function comparePage(
  a: DocumentState,
  b: DocumentState,
  la: Layout,
  lb: Layout,
  num: number,
  add: Add,
  explain: (num: number, level: ChangeLevel) => void,
  newSignatures: Map<number, ChangeLevel>,
  roots: Root[],
): void {
  const before = a.object(num)?.value;
  const after = b.object(num)?.value;
  if (before?.t !== 'dict' || after?.t !== 'dict') {
    add('other', `page ${lb.pages.get(num)} is no longer a dictionary`);
    return;
  }
  for (const key of new Set([...before.v.keys(), ...after.v.keys()])) {
    if (sameValue(before.v.get(key), after.v.get(key)) || key === 'Annots') continue;
    add('other', `page ${lb.pages.get(num)}'s /${key} changed${key === 'Contents' ? ' (what the page shows)' : ''}`);
  }
  if (!sameValue(before.v.get('Annots'), after.v.get('Annots'))) compareAnnotations(a, b, la, num, add, explain, newSignatures, roots);
  explain(num, 'lta');
}

function compareAnnotations(
  a: DocumentState,
  b: DocumentState,
  la: Layout,
  page: number,
  add: Add,
  explain: (num: number, level: ChangeLevel) => void,
  newSignatures: Map<number, ChangeLevel>,
  roots: Root[],
): void {
  const before = refsOf(a, get(a.object(page)?.value, 'Annots'));
  const after = refsOf(b, get(b.object(page)?.value, 'Annots'));
  const index = layoutOf(b).pages.get(page);
  for (const num of before) {
    if (after.includes(num)) continue;
    const subtype = nameOf(get(a.object(num)?.value, 'Subtype'));
    add(subtype && MARKUP.has(subtype) ? 'annotation' : 'other', `a ${subtype ?? ''} annotation was removed from page ${index}`);
  }
  for (const num of after) {
    if (before.includes(num) || newSignatures.has(num)) continue;
    const annotation = b.object(num)?.value;
    const subtype = nameOf(get(annotation, 'Subtype'));
    if (subtype && MARKUP.has(subtype) && !la.reach.has(num)) {
      add('annotation', `a ${subtype} annotation was added to page ${index}`);
      roots.push({ num, level: 'annotation', byTarget: true });
      explain(num, 'annotation');
    } else add('other', `a ${subtype ?? ''} annotation was added to page ${index}`);
  }
}

function compareField(
  a: DocumentState,
  b: DocumentState,
  lb: Layout,
  num: number,
  valued: Set<string>,
  add: Add,
  explain: (num: number, level: ChangeLevel) => void,
  cut: (parent: number, key: string) => void,
  roots: Root[],
  fields: string[],
): void {
  const field = lb.fields.get(num)!;
  const before = a.object(num)?.value as PdfDict;
  const after = field.dict;
  const signature = field.type === 'Sig';
  const readOnly = ((numberOf(before.v.get('Ff')) ?? 0) & 1) === 1;
  let level: ChangeLevel = signature ? 'signing' : 'form_fill';
  for (const key of new Set([...before.v.keys(), ...after.v.keys()])) {
    if (sameValue(before.v.get(key), after.v.get(key))) continue;
    if (key === 'V' && signature && !before.v.has('V')) {
      level = signatureLevel(b, after);
      add(level, level === 'lta' ? 'a document timestamp was added' : `the signature field "${field.name}" was signed`);
      fields.push(field.name);
    } else if (key === 'V' && !signature && !field.widgetOnly && !readOnly) {
      add('form_fill', `the form field "${field.name}" was filled in`);
      fields.push(field.name);
    } else if ((key === 'AP' || key === 'AS' || key === 'MK') && valued.has(field.name)) {
      // A new appearance goes with the value it shows, and only then.
    } else {
      add('other', `the form field "${field.name}"'s /${key} changed${readOnly ? ' (it is read-only)' : ''}`);
      level = 'other';
      continue;
    }
    if (key === 'V' || key === 'AP') {
      cut(num, key);
      for (const ref of directRefs(after.v.get(key)!)) roots.push({ num: ref, level, byTarget: false });
    }
  }
  explain(num, level);
}

/** The fields whose value a revision set (a signature field's first value, or a fillable field's), by full name. */
function valuedFields(a: DocumentState, la: Layout, lb: Layout, changed: Set<number>): Set<string> {
  const names = new Set<string>();
  for (const num of changed) {
    const field = lb.fields.get(num);
    if (!field || !la.fields.has(num) || field.widgetOnly) continue;
    const before = a.object(num)?.value;
    const readOnly = ((numberOf(get(before, 'Ff')) ?? 0) & 1) === 1;
    if (sameValue(get(before, 'V'), field.dict.v.get('V')) || readOnly) continue;
    if (field.type !== 'Sig' || get(before, 'V') === undefined) names.add(field.name);
  }
  return names;
}

function directRefs(value: PdfValue): number[] {
  if (value.t === 'ref') return [value.num];
  if (value.t === 'array') return value.v.flatMap(directRefs);
  if (value.t === 'dict') return [...value.v.values()].flatMap(directRefs);
  return [];
}

/** A changed object in words: a page, a page's content stream, or the kind of object it is. */
function describe(state: DocumentState, layout: Layout, num: number): string {
  const page = layout.pages.get(num);
  if (page) return `page ${page}`;
  const content = layout.contentOf.get(num);
  if (content) return `a content stream of page ${content} (what the page shows)`;
  if (layout.pageNodes.has(num)) return 'the page tree (pages added, removed or reordered)';
  const field = layout.fields.get(num);
  if (field) return `the form field "${field.name}"`;
  let value: PdfValue | undefined;
  try {
    value = state.object(num)?.value;
  } catch {
    return `object ${num} (unreadable)`;
  }
  const type = nameOf(get(value, 'Type')) ?? nameOf(get(value, 'Subtype'));
  return type ? `a /${type} object (${num})` : `object ${num}${value?.t === 'stream' ? ' (a stream)' : ''}`;
}

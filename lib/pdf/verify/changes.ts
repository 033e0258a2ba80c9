// What a revision changed after the one before it, computed object by object and judged by what each
// change is (after pyHanko's difference analysis, reject by default): the validation data of long-term
// signatures, a new signature, a form field's value, a comment, or anything else. Every object a reader
// reaches in the newer revision whose content differs must be explained by one rule; an object that is
// only reachable through a permitted addition (the appearance of a new signature, the DSS) is explained
// by that addition, and everything the document itself displays must not have changed.
// Its words (the levels) are change-levels.ts; what a changed object is, change-objects.ts.
import { t } from '../../i18n';
import { type ChangeLevel, maxLevel, type RevisionChanges } from './change-levels';
import { describe, directRefs, refNum, signatureLevel, valuedFields } from './change-objects';
import type { PdfDict, PdfValue } from './objects';
import { type Layout, layoutOf, MARKUP, reachable, refsOf, trailerRefs } from './structure';
import { get, nameOf, numberOf, sameValue } from './values';
import { type DocumentState, StructureError } from './xref';

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
    add('other', t('verify.change.unreadable_revision', { message: error.message }));
  }
  return result;
}

type Add = (level: ChangeLevel, what: string) => void;

/** A permitted addition: an object whose subtree (what only it reaches) is judged at `level`; a new object is cut from everywhere, an old one only at the edge its rule cut. */
interface Root {
  num: number;
  level: ChangeLevel;
  byTarget: boolean;
}

function compare(a: DocumentState, b: DocumentState, add: Add, fields: string[]): void {
  const rootA = a.root;
  const rootB = b.root;
  if (rootB?.t !== 'ref' || rootA?.t !== 'ref' || rootA.num !== rootB.num) {
    add('other', t('verify.change.root_replaced'));
    return;
  }
  if (!sameValue(a.trailer.v.get('Encrypt'), b.trailer.v.get('Encrypt'))) {
    add('other', t('verify.change.encryption'));
    return;
  }
  const changed = changedObjects(a, b);
  if (changed.size === 0 && sameValue(a.trailer.v.get('Info'), b.trailer.v.get('Info'))) return;
  new Diff(a, b, rootB.num, changed, add, fields).judge();
}

/** The objects whose content differs between two revisions (an entry both share is the same bytes). */
function changedObjects(a: DocumentState, b: DocumentState): Set<number> {
  const candidates: number[] = [];
  for (const [num, entry] of b.entries) {
    // The same entry object is the same section's entry: the same bytes (an object stream's own place aside).
    if (a.entries.get(num) === entry && entry.type !== 'compressed') continue;
    if (a.keyOf(num) !== b.keyOf(num)) candidates.push(num);
  }
  for (const num of a.entries.keys()) if (!b.entries.has(num)) candidates.push(num);
  const changed = new Set<number>();
  for (const num of candidates) {
    let before: PdfValue | undefined;
    try {
      before = a.object(num)?.value;
    } catch {
      before = undefined; // unreadable before: whatever it is now is new
    }
    if (!sameValue(before, b.object(num)?.value)) changed.add(num);
  }
  return changed;
}

const CATALOG_LTA = new Set(['DSS', 'Extensions', 'Version', 'MarkInfo', 'Metadata']);

/** One comparison: each rule explains the changed objects it recognises, the rest is judged by where a reader reaches it from. */
class Diff {
  private readonly la: Layout;
  private readonly lb: Layout;
  private readonly explained = new Map<number, ChangeLevel>();
  /** Additions a reader reaches only through them: their subtrees are judged at their level. */
  private readonly roots: Root[] = [];
  private readonly cutEdges = new Set<string>();
  /** New signature fields and their widgets, with the level of the signature. */
  private readonly newSignatures = new Map<number, ChangeLevel>();
  /** The fields whose value this revision set: their new appearance goes with it. */
  private readonly valued: Set<string>;

  constructor(
    private readonly a: DocumentState,
    private readonly b: DocumentState,
    private readonly catalog: number,
    private readonly changed: Set<number>,
    private readonly add: Add,
    private readonly fields: string[],
  ) {
    this.la = layoutOf(a);
    this.lb = layoutOf(b);
    this.valued = valuedFields(a, this.la, this.lb, changed);
  }

  judge(): void {
    const { a, b, la, lb, changed } = this;
    this.signatureFields();
    const acroForm = refNum(get(b.resolve(b.root), 'AcroForm'));
    for (const num of changed) {
      if (!lb.reach.has(num)) continue;
      if (num === this.catalog) this.compareCatalog();
      else if (num === acroForm) this.compareForm(a.resolve(get(a.resolve(a.root), 'AcroForm')), b.object(num)?.value, num);
      else if (lb.pages.has(num) && la.pages.has(num)) this.comparePage(num);
      else if (la.fields.has(num) && lb.fields.has(num)) this.compareField(num);
    }
    // Arrays held by reference (/Fields, a page's /Annots) change with what they list, judged above.
    const fieldsArray = refNum(get(b.resolve(get(b.resolve(b.root), 'AcroForm')), 'Fields'));
    if (fieldsArray !== undefined && changed.has(fieldsArray)) this.explain(fieldsArray, 'lta');
    for (const page of lb.pages.keys()) {
      const annots = refNum(get(b.object(page)?.value, 'Annots'));
      if (annots !== undefined && changed.has(annots) && la.pages.has(page)) {
        this.compareAnnotations(page);
        this.explain(annots, 'lta');
      }
    }
    const info = refNum(b.trailer.v.get('Info'));
    if (info !== undefined) this.roots.push({ num: info, level: 'lta', byTarget: false });
    this.cut(-1, 'Info');
    this.judgeTheRest();
  }

  private explain(num: number, level: ChangeLevel): void {
    this.explained.set(num, maxLevel(this.explained.get(num), level));
  }

  private cut(parent: number, key: string): void {
    this.cutEdges.add(`${parent}/${key}`);
  }

  private isNew(num: number): boolean {
    return !this.la.reach.has(num);
  }

  /** The form: new signature fields may be added; nothing removed. */
  private signatureFields(): void {
    const { b, la, lb } = this;
    for (const num of lb.topFields) {
      if (la.topFields.includes(num)) continue;
      const field = lb.fields.get(num);
      if (field?.type !== 'Sig' || !this.isNew(num)) {
        this.add('other', t('verify.change.field_added', { object: describe(b, lb, num) }));
        continue;
      }
      const level = signatureLevel(b, field.dict);
      this.newSignatures.set(num, level);
      for (const widget of refsOf(b, field.dict.v.get('Kids'))) this.newSignatures.set(widget, level);
      this.add(
        level,
        level === 'lta' ? t('verify.change.timestamp_added') : t('verify.change.signature_field_added', { field: field.name }),
      );
    }
    for (const num of la.topFields)
      if (!lb.topFields.includes(num)) this.add('other', t('verify.change.field_removed', { field: String(la.fields.get(num)?.name) }));
    // New objects only: no unchanged object of the signed revision can reach them.
    for (const [num, level] of this.newSignatures) this.roots.push({ num, level, byTarget: true });
  }

  private compareCatalog(): void {
    const { a, b, catalog } = this;
    const before = a.resolve(a.root);
    const after = b.resolve(b.root);
    if (before?.t !== 'dict' || after?.t !== 'dict') {
      this.add('other', t('verify.change.catalog_not_dict'));
      return;
    }
    let level: ChangeLevel = 'lta';
    for (const key of new Set([...before.v.keys(), ...after.v.keys()])) {
      if (sameValue(before.v.get(key), after.v.get(key))) continue;
      if (CATALOG_LTA.has(key)) {
        this.cut(catalog, key);
        const target = refNum(after.v.get(key));
        if (target !== undefined) this.roots.push({ num: target, level: 'lta', byTarget: false });
        if (key === 'DSS') this.add('lta', t('verify.change.dss_added'));
      } else if (key === 'AcroForm' && after.v.get(key)?.t === 'dict') {
        level = maxLevel(level, this.compareForm(before.v.get(key), after.v.get(key)));
      } else if (key === 'AcroForm' && before.v.get(key) === undefined && after.v.get(key)?.t === 'ref') {
        level = maxLevel(level, this.compareForm(undefined, b.resolve(after.v.get(key)), refNum(after.v.get(key))));
      } else this.add('other', t('verify.change.catalog_key', { key }));
    }
    this.explain(catalog, level);
  }

  /** The AcroForm dictionary: its /Fields are judged with the field tree; the signature flags are bookkeeping. */
  private compareForm(before: PdfValue | undefined, after: PdfValue | undefined, num?: number): ChangeLevel {
    let level: ChangeLevel = 'lta';
    const keys = new Set([...(before?.t === 'dict' ? before.v.keys() : []), ...(after?.t === 'dict' ? after.v.keys() : [])]);
    for (const key of keys) {
      if (sameValue(get(before, key), get(after, key)) || key === 'Fields' || key === 'SigFlags') continue;
      if (key === 'NeedAppearances' || key === 'DR' || key === 'DA') level = maxLevel(level, 'form_fill');
      else {
        this.add('other', t('verify.change.form_key', { key }));
        level = 'other';
      }
    }
    if (num !== undefined) this.explain(num, level);
    return level;
  }

  private comparePage(num: number): void {
    const before = this.a.object(num)?.value;
    const after = this.b.object(num)?.value;
    const page = this.lb.pages.get(num);
    if (before?.t !== 'dict' || after?.t !== 'dict') {
      this.add('other', t('verify.change.page_not_dict', { page: String(page) }));
      return;
    }
    for (const key of new Set([...before.v.keys(), ...after.v.keys()])) {
      if (sameValue(before.v.get(key), after.v.get(key)) || key === 'Annots') continue;
      this.add('other', t('verify.change.page_key', { page: String(page), key, contents: key === 'Contents' ? 'yes' : 'no' }));
    }
    if (!sameValue(before.v.get('Annots'), after.v.get('Annots'))) this.compareAnnotations(num);
    this.explain(num, 'lta');
  }

  /** A page's annotations: a new signature's widget, or (P=3) comments added or removed. */
  private compareAnnotations(page: number): void {
    const { a, b, la } = this;
    const before = refsOf(a, get(a.object(page)?.value, 'Annots'));
    const after = refsOf(b, get(b.object(page)?.value, 'Annots'));
    const index = this.lb.pages.get(page);
    for (const num of before) {
      if (after.includes(num)) continue;
      const subtype = nameOf(get(a.object(num)?.value, 'Subtype'));
      this.add(
        subtype && MARKUP.has(subtype) ? 'annotation' : 'other',
        t('verify.change.annotation_removed', { subtype: subtype ?? '', page: String(index) }),
      );
    }
    for (const num of after) {
      if (before.includes(num) || this.newSignatures.has(num)) continue;
      const subtype = nameOf(get(b.object(num)?.value, 'Subtype'));
      if (subtype && MARKUP.has(subtype) && !la.reach.has(num)) {
        this.add('annotation', t('verify.change.annotation_added', { subtype, page: String(index) }));
        this.roots.push({ num, level: 'annotation', byTarget: true });
        this.explain(num, 'annotation');
      } else this.add('other', t('verify.change.annotation_added', { subtype: subtype ?? '', page: String(index) }));
    }
  }

  /** An existing field: a value set (not read-only), a first value in a signature field, and the appearance that goes with it. */
  private compareField(num: number): void {
    const field = this.lb.fields.get(num)!;
    const before = this.a.object(num)?.value as PdfDict;
    const after = field.dict;
    const signature = field.type === 'Sig';
    const readOnly = ((numberOf(before.v.get('Ff')) ?? 0) & 1) === 1;
    let level: ChangeLevel = signature ? 'signing' : 'form_fill';
    for (const key of new Set([...before.v.keys(), ...after.v.keys()])) {
      if (sameValue(before.v.get(key), after.v.get(key))) continue;
      if (key === 'V' && signature && !before.v.has('V')) {
        level = signatureLevel(this.b, after);
        this.add(level, level === 'lta' ? t('verify.change.timestamp_added') : t('verify.change.field_signed', { field: field.name }));
        this.fields.push(field.name);
      } else if (key === 'V' && !signature && !field.widgetOnly && !readOnly) {
        this.add('form_fill', t('verify.change.field_filled', { field: field.name }));
        this.fields.push(field.name);
      } else if ((key === 'AP' || key === 'AS' || key === 'MK') && this.valued.has(field.name)) {
        // A new appearance goes with the value it shows, and only then.
      } else {
        this.add('other', t('verify.change.field_key', { field: field.name, key, readOnly: readOnly ? 'yes' : 'no' }));
        level = 'other';
        continue;
      }
      if (key === 'V' || key === 'AP') {
        this.cut(num, key);
        for (const ref of directRefs(after.v.get(key)!)) this.roots.push({ num: ref, level, byTarget: false });
      }
    }
    this.explain(num, level);
  }

  /**
   * What the document itself displays (everything reachable but through the permitted additions)
   * must not have changed; what only a permitted addition reaches is judged at its level.
   */
  private judgeTheRest(): void {
    const { b, lb, roots, cutEdges } = this;
    const pending = [...this.changed].filter((num) => lb.reach.has(num) && !this.explained.has(num));
    if (pending.length === 0) return;
    const cutTargets = new Set(roots.filter((root) => root.byTarget).map((root) => root.num));
    // With no permitted addition, all a reader reaches is the document itself: no second walk.
    const core =
      roots.length === 0
        ? lb.reach
        : reachable(b, trailerRefs(b), { cut: (parent, key, target) => cutEdges.has(`${parent}/${key}`) || cutTargets.has(target) });
    const subtreeLevel = new Map<number, ChangeLevel>();
    for (const root of roots) {
      for (const num of reachable(b, [{ num: root.num, key: '' }], { cut: (_parent, _key, target) => core.has(target) })) {
        subtreeLevel.set(num, maxLevel(subtreeLevel.get(num), root.level));
      }
    }
    for (const num of pending) {
      const level = core.has(num) ? undefined : subtreeLevel.get(num);
      if (level) this.explain(num, level);
      else
        this.add(
          'other',
          t(this.isNew(num) ? 'verify.change.object_added' : 'verify.change.object_changed', { object: describe(b, lb, num) }),
        );
    }
  }
}

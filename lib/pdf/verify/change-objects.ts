// What a changed object is, as the revision comparison (changes.ts) judges and reports it: the level of a
// signature, the fields a revision gave a value, the objects a value names, and an object in words.
import { t } from '../../i18n';
import type { ChangeLevel } from './change-levels';
import type { PdfDict, PdfValue } from './objects';
import { invisible, type Layout, refsOf } from './structure';
import { get, nameOf, numberOf, sameValue } from './values';
import type { DocumentState } from './xref';

/** The object number a reference names (undefined: not a reference). */
export function refNum(value: PdfValue | undefined): number | undefined {
  return value?.t === 'ref' ? value.num : undefined;
}

/** A document timestamp that shows nothing is validation data; any other signature is signing. */
export function signatureLevel(state: DocumentState, field: PdfDict): ChangeLevel {
  const value = state.resolve(field.v.get('V'));
  const timestamp = nameOf(get(value, 'Type')) === 'DocTimeStamp' || nameOf(get(value, 'SubFilter')) === 'ETSI.RFC3161';
  const widgets = refsOf(state, field.v.get('Kids')).map((num) => state.object(num)?.value);
  const shows = (nameOf(field.v.get('Subtype')) === 'Widget' ? [field] : widgets).some((widget) => !invisible(widget));
  return timestamp && !shows ? 'lta' : 'signing';
}

/** The fields whose value a revision set (a signature field's first value, or a fillable field's), by full name. */
export function valuedFields(a: DocumentState, la: Layout, lb: Layout, changed: Set<number>): Set<string> {
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

/** The objects a value names directly (in itself, its arrays and dictionaries), not what those name. */
export function directRefs(value: PdfValue): number[] {
  if (value.t === 'ref') return [value.num];
  if (value.t === 'array') return value.v.flatMap(directRefs);
  if (value.t === 'dict') return [...value.v.values()].flatMap(directRefs);
  return [];
}

/** A changed object in words: a page, a page's content stream, or the kind of object it is. */
export function describe(state: DocumentState, layout: Layout, num: number): string {
  const page = layout.pages.get(num);
  if (page) return t('verify.object.page', { page });
  const content = layout.contentOf.get(num);
  if (content) return t('verify.object.content_stream', { page: content });
  if (layout.pageNodes.has(num)) return t('verify.object.page_tree');
  const field = layout.fields.get(num);
  if (field) return t('verify.object.field', { field: field.name });
  let value: PdfValue | undefined;
  try {
    value = state.object(num)?.value;
  } catch {
    return t('verify.object.unreadable', { num });
  }
  const type = nameOf(get(value, 'Type')) ?? nameOf(get(value, 'Subtype'));
  return type ? t('verify.object.typed', { type, num }) : t('verify.object.plain', { num, stream: value?.t === 'stream' ? 'yes' : 'no' });
}

// The signatures of a PDF as a standards-following reader sees them (the AcroForm's signature fields
// and their values), the signature dictionaries nothing references (reported, never counted), and the
// structure every one must have before its CMS is worth checking: a /ByteRange from byte 0 to the end
// of a revision whose gap is exactly its /Contents hex string, inside a dictionary inside the signed
// bytes.

import * as asn1js from 'asn1js';
import { t } from '../../i18n';
import type { PdfDict, PdfValue } from './objects';
import { get, nameOf, numberOf, textOf } from './values';
import type { DocumentState, IndirectObject, PdfFile, RevisionEnd } from './xref';

export type SignatureKind = 'approval' | 'certification' | 'timestamp';

/** Locked form fields (FieldMDP, PDF 2.0 12.8.2.4): none, all, those named, or all but those named. */
export interface FieldLock {
  action: 'All' | 'Include' | 'Exclude';
  fields: string[];
  /** PDF 2.0 /P in a /Lock dictionary: the DocMDP permission this signature sets. */
  permission?: number;
}

export interface FoundSignature {
  /** The field's full name; undefined for a dictionary no field references. */
  field?: string;
  reachable: boolean;
  kind: SignatureKind;
  subfilter: string;
  dict: PdfDict;
  /** The object that holds the dictionary (the field's object when the value is direct). */
  holder: IndirectObject;
  /** The dictionary's own object number when it is indirect. */
  num?: number;
  /** DocMDP permission of a certification signature (1: no changes, 2: forms and signing, 3: also annotations). */
  docMdp?: number;
  lock?: FieldLock;
  claimedTime?: Date;
  byteRange?: [number, number, number, number];
  /** The decoded /Contents, cut to its DER (zero padding removed); undefined when there is none. */
  contents?: Uint8Array;
  /** The revision whose end the byte range reaches (index into the file's readable revisions). */
  revision?: number;
  /** Why its structure fails, in words; undefined when it holds. */
  structureProblem?: string;
}

/** More signature dictionaries than this are refused before any is checked (each costs a hash of the file). */
export const MAX_SIGNATURES = 50;

/** Occurrences of the /ByteRange key in the raw bytes: the bound checked before any parsing. */
export function countByteRanges(bytes: Uint8Array): number {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let count = 0;
  for (let at = buffer.indexOf('/ByteRange'); at !== -1; at = buffer.indexOf('/ByteRange', at + 10)) count++;
  return count;
}

/** The signature fields reachable from the AcroForm of `state`, then the dictionaries that look like signatures but no field holds. */
export function findSignatures(file: PdfFile, state: DocumentState, revisions: RevisionEnd[]): FoundSignature[] {
  const found: FoundSignature[] = [];
  const reachable = new Set<string>();
  const catalog = state.resolve(state.root);
  const acroForm = state.resolve(get(catalog, 'AcroForm'));
  const visited = new Set<number>();
  const visit = (ref: PdfValue, parentName: string | undefined, inheritedType: string | undefined, depth: number) => {
    if (ref.t !== 'ref' || visited.has(ref.num) || depth > 32 || visited.size > 100_000) return;
    visited.add(ref.num);
    const object = state.object(ref.num);
    const node = object?.value;
    if (!object || node?.t !== 'dict') return;
    const partial = textOf(node.v.get('T'));
    const name = partial === undefined ? parentName : parentName ? `${parentName}.${partial}` : partial;
    const type = nameOf(node.v.get('FT')) ?? inheritedType;
    const kids = state.resolve(node.v.get('Kids'));
    if (kids?.t === 'array') for (const kid of kids.v) visit(kid, name, type, depth + 1);
    if (type !== 'Sig' || !node.v.has('V')) return;
    const value = node.v.get('V')!;
    const dict = state.resolve(value);
    if (dict?.t !== 'dict') return;
    const holder = value.t === 'ref' ? state.object(value.num) : object;
    if (!holder) return;
    reachable.add(holder.key);
    const lock = state.resolve(node.v.get('Lock'));
    found.push(
      describe(file, dict, holder, value.t === 'ref' ? value.num : undefined, revisions, { field: name ?? '', reachable: true, lock }),
    );
  };
  const fields = state.resolve(get(acroForm, 'Fields'));
  if (fields?.t === 'array') for (const field of fields.v) visit(field, undefined, undefined, 0);

  for (const object of dictionariesWithByteRange(file, state)) {
    if (reachable.has(object.key) || object.value.t !== 'dict') continue;
    found.push(describe(file, object.value, object, object.num, revisions, { reachable: false }));
  }
  return found.sort((a, b) => end(a) - end(b));
}

function end(signature: FoundSignature): number {
  const range = signature.byteRange;
  return range ? range[2] + range[3] : Number.MAX_SAFE_INTEGER;
}

/** The objects of `state` whose bytes hold "/ByteRange" (in the file, or inside an object stream). */
function* dictionariesWithByteRange(file: PdfFile, state: DocumentState): Generator<IndirectObject> {
  const bytes = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
  const starts: Array<[number, number]> = [];
  for (const [num, entry] of state.entries) if (entry.type === 'offset') starts.push([entry.offset, num]);
  starts.sort((a, b) => a[0] - b[0]);
  const seen = new Set<number>();
  for (let at = bytes.indexOf('/ByteRange'); at !== -1; at = bytes.indexOf('/ByteRange', at + 10)) {
    let low = 0;
    let high = starts.length - 1;
    let best = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (starts[middle][0] <= at) {
        best = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    if (best < 0 || seen.has(starts[best][1])) continue;
    const num = starts[best][1];
    seen.add(num);
    try {
      const object = state.object(num);
      if (object?.end !== undefined && object.end > at && object.value.t === 'dict' && object.value.v.has('ByteRange')) yield object;
    } catch {
      // An unreadable object is no signature a reader could show.
    }
  }
}

function describe(
  file: PdfFile,
  dict: PdfDict,
  holder: IndirectObject,
  num: number | undefined,
  revisions: RevisionEnd[],
  where: { field?: string; reachable: boolean; lock?: PdfValue },
): FoundSignature {
  const subfilter = nameOf(dict.v.get('SubFilter')) ?? 'unknown';
  const isTimestamp = nameOf(dict.v.get('Type')) === 'DocTimeStamp' || subfilter === 'ETSI.RFC3161';
  const docMdp = isTimestamp ? undefined : docMdpOf(dict);
  const signature: FoundSignature = {
    field: where.field,
    reachable: where.reachable,
    kind: isTimestamp ? 'timestamp' : docMdp !== undefined ? 'certification' : 'approval',
    subfilter,
    dict,
    holder,
    num,
    docMdp,
    lock: lockOf(where.lock) ?? lockOf(fieldMdpOf(dict)),
    claimedTime: dateOf(textOf(dict.v.get('M'))),
  };
  signature.structureProblem = structureProblem(file, signature, revisions);
  return signature;
}

function structureProblem(file: PdfFile, signature: FoundSignature, revisions: RevisionEnd[]): string | undefined {
  const { dict, holder } = signature;
  if (dict.duplicateKey) return t('verify.structure.duplicate_key', { key: dict.duplicateKey });
  const range = dict.v.get('ByteRange');
  const numbers = range?.t === 'array' ? range.v.map(numberOf) : [];
  if (numbers.length !== 4 || numbers.some((n) => n === undefined || !Number.isInteger(n) || n < 0))
    return t('verify.structure.no_byte_range');
  const [a, b, c, d] = numbers as [number, number, number, number];
  signature.byteRange = [a, b, c, d];
  const contents = dict.v.get('Contents');
  if (contents?.t !== 'str') return t('verify.structure.no_contents');
  if (a !== 0) return t('verify.structure.range_start');
  if (b <= 0 || c <= b || c + d > file.bytes.length) return t('verify.structure.range_fit');
  const revision = revisions.findIndex((candidate) => candidate.end === c + d || candidate.eof === c + d);
  if (revision === -1) return t('verify.structure.range_end');
  signature.revision = revision;
  if (holder.offset === undefined || holder.end === undefined) return t('verify.structure.in_object_stream');
  if (holder.offset >= b || holder.end > c + d) return t('verify.structure.outside_signed_bytes');
  const span = dict.contentsSpan;
  if (!contents.hex || !span || span[0] !== b || span[1] !== c) return t('verify.structure.gap');
  const der = derPrefix(contents.v);
  if (!der) return t('verify.structure.contents_not_der');
  if (der.length < contents.v.length && contents.v.subarray(der.length).some((byte) => byte !== 0))
    return t('verify.structure.bytes_after_cms');
  signature.contents = der;
  return undefined;
}

/** The DER value at the start of zero-padded bytes, cut to its own length. */
function derPrefix(bytes: Uint8Array): Uint8Array | undefined {
  if (bytes.length < 2) return undefined;
  const parsed = asn1js.fromBER(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  if (parsed.offset === -1 || parsed.result.error) return undefined;
  return bytes.subarray(0, parsed.offset);
}

function docMdpOf(dict: PdfDict): number | undefined {
  const references = dict.v.get('Reference');
  if (references?.t !== 'array') return undefined;
  for (const reference of references.v) {
    if (nameOf(get(reference, 'TransformMethod')) !== 'DocMDP') continue;
    const p = numberOf(get(get(reference, 'TransformParams'), 'P')) ?? 2;
    return p === 1 || p === 3 ? p : 2;
  }
  return undefined;
}

function fieldMdpOf(dict: PdfDict): PdfValue | undefined {
  const references = dict.v.get('Reference');
  if (references?.t !== 'array') return undefined;
  for (const reference of references.v)
    if (nameOf(get(reference, 'TransformMethod')) === 'FieldMDP') return get(reference, 'TransformParams');
  return undefined;
}

function lockOf(value: PdfValue | undefined): FieldLock | undefined {
  if (value?.t !== 'dict') return undefined;
  const action = nameOf(value.v.get('Action'));
  const fields = value.v.get('Fields');
  const permission = numberOf(value.v.get('P'));
  if (action !== 'All' && action !== 'Include' && action !== 'Exclude')
    return permission ? { action: 'Include', fields: [], permission } : undefined;
  return {
    action,
    fields: fields?.t === 'array' ? fields.v.flatMap((field) => textOf(field) ?? []) : [],
    ...(permission ? { permission } : {}),
  };
}

/** A PDF date (D:YYYYMMDDHHmmSSOHH'mm'); undefined when unreadable. */
export function dateOf(text: string | undefined): Date | undefined {
  const match = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+-])?(\d{2})?'?(\d{2})?'?$/.exec(text ?? '');
  if (!match) return undefined;
  const [, year, month = '01', day = '01', hour = '00', minute = '00', second = '00', sign, offsetHours = '00', offsetMinutes = '00'] =
    match;
  const utc = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second));
  const offset = (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
  const time = sign === '+' ? utc - offset : sign === '-' ? utc + offset : utc;
  return Number.isNaN(time) ? undefined : new Date(time);
}

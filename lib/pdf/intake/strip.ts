// Stripping: active and dynamic content that can go without changing what a page shows.
import { PDFArray, type PDFCatalog, PDFDict, PDFHexString, PDFName, PDFNumber, type PDFObject, type PDFPageLeaf, PDFString } from 'pdf-lib';
import { eachField, name } from './checks';

/** What `removed` names, one per kind of content stripped. */
export type Removed =
  | 'javascript'
  | 'open_action'
  | 'additional_actions'
  | 'actions'
  | 'xfa'
  | 'embedded_files'
  | 'file_attachments'
  | 'portfolio'
  | 'multimedia'
  | 'hidden_annotations'
  | 'usage_rights'
  | 'form_fields';

// Annotations that play media or run their own code (Screen and RichMedia carry Flash, video, 3D JavaScript).
const MULTIMEDIA = new Set(['Sound', 'Movie', 'Screen', 'RichMedia', '3D']);
const HIDDEN = 1 << 1;
const NO_VIEW = 1 << 5;
// The link targets a signer can see and follow: anything else (file:, javascript:, data:) is not a plain link.
const SAFE_URI = /^(https?|mailto):/i;

export function stripActiveContent(catalog: PDFCatalog, pages: PDFPageLeaf[]): Set<Removed> {
  const removed = new Set<Removed>();
  const drop = (dict: PDFDict, key: string, what: Removed) => {
    if (dict.delete(name(key))) removed.add(what);
  };

  // Opening the document may only go to a place in it; any other action (script, URI, launch) goes.
  const open = catalog.lookup(name('OpenAction'));
  if (open !== undefined && !(open instanceof PDFArray) && !(open instanceof PDFDict && isPlainGoTo(open))) {
    drop(catalog, 'OpenAction', 'open_action');
  }
  drop(catalog, 'AA', 'additional_actions');
  drop(catalog, 'AF', 'embedded_files');
  drop(catalog, 'Collection', 'portfolio');
  // Only usage rights remain in /Perms here (a certification is refused): our changes would void them anyway.
  drop(catalog, 'Perms', 'usage_rights');
  const names = catalog.lookup(name('Names'));
  if (names instanceof PDFDict) {
    drop(names, 'JavaScript', 'javascript');
    drop(names, 'EmbeddedFiles', 'embedded_files');
  }

  const form = catalog.lookup(name('AcroForm'));
  if (form instanceof PDFDict) {
    drop(form, 'XFA', 'xfa');
    eachField(form, (field) => {
      drop(field, 'AA', 'additional_actions');
      stripAction(field, removed);
    });
  }

  stripOutlineActions(catalog, removed);

  for (const page of pages) {
    drop(page, 'AA', 'additional_actions');
    drop(page, 'AF', 'embedded_files');
    const annots = page.lookup(name('Annots'));
    if (!(annots instanceof PDFArray)) continue;
    const kept: PDFObject[] = [];
    for (const item of annots.asArray()) {
      const annot = page.context.lookup(item);
      if (annot instanceof PDFDict) {
        const verdict = annotationVerdict(annot);
        if (verdict) {
          removed.add(verdict);
          continue;
        }
        drop(annot, 'AA', 'additional_actions');
        stripAction(annot, removed);
      }
      kept.push(item);
    }
    if (kept.length !== annots.size()) page.set(name('Annots'), page.context.obj(kept));
  }
  return removed;
}

/** Why an annotation goes whole, or undefined when it stays. */
function annotationVerdict(annot: PDFDict): Removed | undefined {
  const subtype = annot.lookup(name('Subtype'));
  const kind = subtype instanceof PDFName ? subtype.decodeText() : '';
  if (kind === 'FileAttachment') return 'file_attachments';
  if (MULTIMEDIA.has(kind)) return 'multimedia';
  // Hidden, or NoView (shown only when printed): removing it makes print and screen agree.
  const flags = annot.lookup(name('F'));
  if (flags instanceof PDFNumber && flags.asNumber() & (HIDDEN | NO_VIEW)) return 'hidden_annotations';
  return undefined;
}

/** Keeps a plain GoTo or URI action (without /Next); any other goes: JavaScript, Launch, SubmitForm, SetOCGState … */
function stripAction(owner: PDFDict, removed: Set<Removed>): void {
  const action = owner.lookup(name('A'));
  if (action === undefined) return;
  if (action instanceof PDFDict && (isPlainGoTo(action) || isPlainUri(action))) return;
  owner.delete(name('A'));
  removed.add(action instanceof PDFDict && action.lookup(name('S')) === name('JavaScript') ? 'javascript' : 'actions');
}

function isPlainGoTo(action: PDFDict): boolean {
  return action.lookup(name('S')) === name('GoTo') && !action.has(name('Next'));
}

function isPlainUri(action: PDFDict): boolean {
  if (action.lookup(name('S')) !== name('URI') || action.has(name('Next'))) return false;
  const uri = action.lookup(name('URI'));
  const text = uri instanceof PDFString || uri instanceof PDFHexString ? uri.decodeText() : '';
  return SAFE_URI.test(text.trim());
}

/** Bookmarks carry actions too: walked by /First and /Next, each item once. */
function stripOutlineActions(catalog: PDFCatalog, removed: Set<Removed>): void {
  const outlines = catalog.lookup(name('Outlines'));
  if (!(outlines instanceof PDFDict)) return;
  const seen = new Set<PDFObject>();
  const stack: PDFObject[] = [];
  const push = (next: PDFObject | undefined) => {
    if (next !== undefined) stack.push(next);
  };
  push(outlines.get(name('First')));
  while (stack.length > 0) {
    const item = catalog.context.lookup(stack.pop());
    if (!(item instanceof PDFDict) || seen.has(item)) continue;
    seen.add(item);
    stripAction(item, removed);
    push(item.get(name('First')));
    push(item.get(name('Next')));
  }
}

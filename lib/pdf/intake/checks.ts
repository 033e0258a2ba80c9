// Refusals after parsing: what cannot be made safe by stripping, only by the sender.
import {
  PDFArray,
  PDFBool,
  type PDFCatalog,
  type PDFContext,
  PDFDict,
  PDFName,
  PDFNull,
  PDFNumber,
  type PDFObject,
  PDFPageLeaf,
  PDFPageTree,
  PDFRef,
} from 'pdf-lib';
import { t } from '../../i18n';
import { refuse } from './refuse';

export const name = (value: string) => PDFName.of(value);
// Deeper page trees come from no producer; pdf-lib walks them recursively.
const MAX_TREE_DEPTH = 64;

/**
 * Walks the page tree as a reader does and refuses what readers would disagree on: a node that is
 * neither /Pages nor /Page (pdf-lib skips it, pdf.js shows it as a page), a page listed twice or a
 * cycle, and a /Count that differs from the pages under it (pdf.js finds page n by /Count, pdf-lib by
 * walking). Refuses more pages than the limit, claimed or real. Answers the number of pages.
 */
export function checkPageTree(catalog: PDFCatalog, maxPages: number): number {
  const context = catalog.context;
  const root = catalog.lookup(name('Pages'));
  if (!(root instanceof PDFPageTree)) throw refuse(t('errors.pdf.no_page_tree'));
  const claimed = countOf(root);
  if (claimed !== undefined && claimed > maxPages) throw tooManyPages(maxPages, claimed);

  interface Frame {
    node: PDFPageTree;
    kids: PDFArray;
    index: number;
    pages: number;
  }
  const frame = (node: PDFPageTree): Frame => {
    const kids = node.lookup(name('Kids'));
    if (!(kids instanceof PDFArray)) throw malformedTree(t('errors.pdf.tree.no_kids'));
    return { node, kids, index: 0, pages: 0 };
  };
  const seen = new Set<PDFObject>([root]);
  const stack = [frame(root)];
  let total = 0;
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.index >= top.kids.size()) {
      stack.pop();
      const count = countOf(top.node);
      if (count === undefined) throw malformedTree(t('errors.pdf.tree.claims_no_pages', { pages: top.pages }));
      if (count !== top.pages) throw malformedTree(t('errors.pdf.tree.claims_pages', { count, pages: top.pages }));
      if (stack.length > 0) stack[stack.length - 1].pages += top.pages;
      continue;
    }
    const ref = top.kids.get(top.index++);
    const kid = ref instanceof PDFRef ? context.lookup(ref) : undefined;
    if (!kid) throw malformedTree(t('errors.pdf.tree.kid_not_reference'));
    if (seen.has(kid)) throw malformedTree(t('errors.pdf.tree.listed_twice'));
    seen.add(kid);
    if (kid instanceof PDFPageLeaf) {
      top.pages++;
      if (++total > maxPages) throw tooManyPages(maxPages, claimed);
    } else if (kid instanceof PDFPageTree) {
      if (stack.length >= MAX_TREE_DEPTH) throw malformedTree(t('errors.pdf.tree.too_deep', { maxDepth: MAX_TREE_DEPTH }));
      stack.push(frame(kid));
    } else {
      throw malformedTree(t('errors.pdf.tree.kid_neither'));
    }
  }
  if (total === 0) throw refuse(t('errors.pdf.no_pages'));
  return total;
}

function countOf(node: PDFDict): number | undefined {
  const count = node.lookup(name('Count'));
  return count instanceof PDFNumber ? count.asNumber() : undefined;
}

function tooManyPages(maxPages: number, claimed: number | undefined): Error {
  if (claimed !== undefined && claimed > maxPages) return refuse(t('errors.pdf.more_than_pages_claimed', { maxPages, claimed }));
  return refuse(t('errors.pdf.more_than_pages', { maxPages }));
}

function malformedTree(why: string): Error {
  return refuse(t('errors.pdf.page_tree_malformed', { why }));
}

/**
 * A signature already made: a signed /Sig field (its /FT may be inherited), /SigFlags bit 1, or a
 * certification (/Perms /DocMDP). Usage rights (/Perms /UR3) are no one's signature: they are stripped.
 */
export function checkNotSigned(catalog: PDFCatalog, pages: PDFDict[]): void {
  const signed = (field: PDFDict, type: string | undefined) => {
    const value = field.lookup(name('V'));
    return type === 'Sig' && value !== undefined && value !== PDFNull;
  };
  // A signed widget can sit on a page without being listed in the form.
  for (const page of pages) {
    const annots = page.lookup(name('Annots'));
    if (!(annots instanceof PDFArray)) continue;
    for (const item of annots.asArray()) {
      const annot = page.context.lookup(item);
      if (annot instanceof PDFDict && signed(annot, nameText(annot.lookup(name('FT')))))
        throw refuse(t('errors.pdf.already_carries_digital_signature'));
    }
  }
  const perms = catalog.lookup(name('Perms'));
  if (perms instanceof PDFDict && perms.has(name('DocMDP'))) throw refuse(t('errors.pdf.already_carries_digital_signature'));
  const form = catalog.lookup(name('AcroForm'));
  if (!(form instanceof PDFDict)) return;
  const flags = form.lookup(name('SigFlags'));
  if (flags instanceof PDFNumber && flags.asNumber() & 1) throw refuse(t('errors.pdf.already_carries_digital_signature'));
  eachField(form, (field, type) => {
    if (signed(field, type)) throw refuse(t('errors.pdf.already_carries_digital_signature'));
  });
}

/** Every node of the AcroForm field tree with its field type (inherited from its ancestors). */
export function eachField(form: PDFDict, visit: (field: PDFDict, type: string | undefined) => void): void {
  const fields = form.lookup(name('Fields'));
  if (!(fields instanceof PDFArray)) return;
  const context = form.context;
  const seen = new Set<PDFObject>();
  const stack: Array<[PDFObject, string | undefined]> = fields.asArray().map((field) => [field, undefined]);
  for (let item = stack.pop(); item; item = stack.pop()) {
    const field = context.lookup(item[0]);
    if (!(field instanceof PDFDict) || seen.has(field)) continue;
    seen.add(field);
    const type = nameText(field.lookup(name('FT'))) ?? item[1];
    visit(field, type);
    const kids = field.lookup(name('Kids'));
    if (kids instanceof PDFArray) for (const kid of kids.asArray()) stack.push([kid, type]);
  }
}

/**
 * Optional content (layers) that a reader may hide is refused rather than stripped: dropping the
 * layers would show the signer content its author hid, and keeping them lets a reader show something
 * other than what was signed. Refused: groups off in the default configuration (/OFF, /BaseState
 * /OFF), usage rules (/AS) that turn a group off on screen, in print, on export, at some zoom, or by
 * language or user, and membership dictionaries that hide content while their groups are on (a
 * visibility expression /VE, or /P /AllOff or /AnyOff). Layers on everywhere stay (watermark tools
 * write /AS rules whose states are all on); actions that would toggle them (SetOCGState) are stripped.
 */
export function checkOptionalContent(catalog: PDFCatalog): void {
  const properties = catalog.lookup(name('OCProperties'));
  if (!(properties instanceof PDFDict)) return;
  const config = properties.lookup(name('D'));
  if (!(config instanceof PDFDict)) return;
  const off = config.lookup(name('OFF'));
  if (off instanceof PDFArray && off.size() > 0) throw hiddenContent(t('errors.pdf.layers.off_by_default'));
  if (config.lookup(name('BaseState')) === name('OFF')) throw hiddenContent(t('errors.pdf.layers.base_state_off'));
  const rules = config.lookup(name('AS'));
  if (!(rules instanceof PDFArray)) return;
  for (const rule of rules.asArray()) {
    const entry = catalog.context.lookup(rule);
    if (!(entry instanceof PDFDict)) continue;
    const categories = names(entry.lookup(name('Category')));
    const groups = entry.lookup(name('OCGs'));
    for (const group of groups instanceof PDFArray ? groups.asArray() : []) {
      const usage = catalog.context.lookup(group);
      const rulesOf = usage instanceof PDFDict ? usage.lookup(name('Usage')) : undefined;
      if (!(rulesOf instanceof PDFDict)) continue;
      for (const category of categories) {
        if (turnsOff(category, rulesOf.lookup(name(category)))) {
          throw hiddenContent(t('errors.pdf.layers.off_by_use', { category }));
        }
      }
    }
  }
}

/** Whether a group's usage rule for this category can turn it off. */
function turnsOff(category: string, rule: PDFObject | undefined): boolean {
  if (!(rule instanceof PDFDict)) return false;
  const state = (key: string) => rule.lookup(name(key)) === name('OFF');
  switch (category) {
    case 'View':
      return state('ViewState');
    case 'Print':
      return state('PrintState');
    case 'Export':
      return state('ExportState');
    case 'Zoom': {
      const min = rule.lookup(name('min'));
      const max = rule.lookup(name('max'));
      return (min instanceof PDFNumber && min.asNumber() > 0) || max instanceof PDFNumber;
    }
    // On or off by the reader's language or the user reading: not the same for every reader.
    case 'Language':
    case 'User':
      return true;
    default:
      return false;
  }
}

function names(object: PDFObject | undefined): string[] {
  if (object instanceof PDFName) return [object.decodeText()];
  if (!(object instanceof PDFArray)) return [];
  return object.asArray().flatMap((item) => (item instanceof PDFName ? [item.decodeText()] : []));
}

/** Called on every reachable dictionary: an optional content membership that hides content while its groups are on. */
export function checkMembership(object: PDFDict | PDFArray): void {
  if (!(object instanceof PDFDict) || object.get(name('Type')) !== name('OCMD')) return;
  if (object.has(name('VE'))) throw hiddenContent(t('errors.pdf.layers.visibility_expression'));
  const policy = object.lookup(name('P'));
  if (policy === name('AllOff') || policy === name('AnyOff')) throw hiddenContent(t('errors.pdf.layers.shown_while_off'));
}

function nameText(object: PDFObject | undefined): string | undefined {
  return object instanceof PDFName ? object.decodeText() : undefined;
}

function hiddenContent(why: string): Error {
  return refuse(t('errors.pdf.hidden_optional_content_flatten', { why }));
}

/** A dynamic XFA form keeps its content in the XFA only: without it the signer would see a placeholder page. */
export function checkNotDynamicXfa(catalog: PDFCatalog): void {
  if (catalog.lookup(name('NeedsRendering')) === PDFBool.True) {
    throw refuse(t('errors.pdf.dynamic_xfa'));
  }
}

/** The trailer names an /Encrypt dictionary, found or not: pdf-lib only refuses one it finds. */
export function isEncrypted(context: PDFContext): boolean {
  return context.trailerInfo.Encrypt !== undefined;
}

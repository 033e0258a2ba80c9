import { PSEUDO_CLOSE, PSEUDO_LOCALE, PSEUDO_OPEN } from '../lib/i18n';

/**
 * The check that a page shows only catalogue strings (issue 38): render it in the pseudo-locale
 * (`Accept-Language: en-XA`, or lib/i18n's withLocale('en-XA', …)), where every catalogue string
 * is wrapped in ⟦ ⟧, and pass the result here. What is left after removing the wrapped strings,
 * the test's own data (titles, names, e-mail addresses it created) and values that carry no
 * language (ids, hashes, numbers, URLs, e-mail addresses, ISO times) must hold no letter or digit.
 */
export const PSEUDO_HEADERS = { 'accept-language': PSEUDO_LOCALE };

const NO_LANGUAGE = [
  /https?:\/\/[^\s⟦⟧"<>]+/g, // URLs
  /[\w.+-]+@[\w-]+(\.[\w-]+)+/g, // e-mail addresses
  /\b\d{4}-\d{2}-\d{2}T[\d:.]+Z\b/g, // ISO times
  /\b[a-z]+_[A-Za-z0-9_-]{6,}\b/g, // ids (doc_…, key_…)
  /\b[A-Za-z0-9_-]{24,}\b/g, // tokens, hashes, key material
  /\b[0-9a-f]{8,}\b/gi, // hex (hashes, prefixes)
  /\b\d[\d.,:/-]*\b/g, // numbers, sizes, versions
];

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) => {
    if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith('#') && name !== '#39') return String.fromCodePoint(Number(name.slice(1)));
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** The parts of `text` outside ⟦ ⟧ (balanced, nested allowed) that still hold a letter or digit after the data is removed. */
export function outsideCatalogue(text: string, data: readonly string[] = []): string[] {
  let rest = text;
  const innermost = new RegExp(`${PSEUDO_OPEN}[^${PSEUDO_OPEN}${PSEUDO_CLOSE}]*${PSEUDO_CLOSE}`, 'g');
  for (let before = ''; before !== rest; ) {
    before = rest;
    rest = rest.replace(innermost, ' ');
  }
  // URLs and e-mail addresses first, whole: a short datum (a level, "L2") found inside a link's random
  // token would otherwise cut the token in two, and leave a piece of it that reads like a word.
  const [urls, emails, ...values] = NO_LANGUAGE;
  rest = rest.replace(urls, ' ').replace(emails, ' ');
  for (const value of [...data].filter(Boolean).sort((a, b) => b.length - a.length)) rest = rest.split(value).join(' ');
  for (const pattern of values) rest = rest.replace(pattern, ' ');
  return rest
    .split(/\s{2,}|\n/)
    .map((part) => part.trim())
    .filter((part) => /[\p{L}\p{N}]/u.test(part));
}

const READ_ATTRIBUTES = /\s(?:title|alt|placeholder|aria-label|aria-description|aria-roledescription|data-confirm)="([^"]*)"/g;

/**
 * What a person reads in an HTML page that is not from the catalogue: its text (scripts, styles and
 * comments left out, tags read as spaces) and the attributes people read (title, alt, placeholder,
 * aria-label …), and button-like inputs' values.
 */
export function pageOutsideCatalogue(page: string, data: readonly string[] = []): string[] {
  const withoutCode = page
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<meta\b[^>]*>/gi, ' ')
    .replace(/<!doctype[^>]*>/gi, ' ');
  const attributes = [...withoutCode.matchAll(READ_ATTRIBUTES)].map((match) => decode(match[1]));
  const buttons = [...withoutCode.matchAll(/<input\b[^>]*type="(?:submit|button|reset)"[^>]*>/gi)].flatMap((match) => {
    const value = /\svalue="([^"]*)"/.exec(match[0]);
    return value ? [decode(value[1])] : [];
  });
  const text = decode(withoutCode.replace(/<[^>]*>/g, '  '));
  return [text, ...attributes, ...buttons].flatMap((part) => outsideCatalogue(part, data));
}

import { AsyncLocalStorage } from 'node:async_hooks';
import { IntlMessageFormat, type PrimitiveType } from 'intl-messageformat';
import app from './en/app.json';
import browser from './en/browser.json';
import certificate from './en/certificate.json';
import common from './en/common.json';
import errors from './en/errors.json';
import mail from './en/mail.json';
import sign from './en/sign.json';
import verify from './en/verify.json';

/**
 * The message catalogue: every string a person reads (pages, mails, the certificate page, the
 * app's error messages, the browser's texts) by key. The English catalogue is the files under
 * en/, one per area; a key is `<area>.<key in that file>`. Messages are ICU MessageFormat
 * (intl-messageformat, docs/decisions/0035-message-catalogue.md): `{name}` parameters, `{n, plural, one {…} other {…}}`,
 * `{n, number}`, `{at, date, medium}`. A language is a data change: another folder beside en/ with
 * the same keys (issue 41).
 *
 * The locale of the work in progress is carried by `withLocale` (an AsyncLocalStorage, set per
 * request by the app's middleware and around a mail or a certificate page); it is English when
 * nothing set it. `en-XA` is the pseudo-locale: each message is English wrapped in ⟦ ⟧, so a
 * string that did not come from the catalogue stands out (test/catalogue.ts checks pages with it).
 */
const AREAS = { common, app, sign, browser, mail, certificate, errors, verify } as const;
type Areas = typeof AREAS;
type AreaKeys<Area extends keyof Areas> = Area extends string ? `${Area}.${Extract<keyof Areas[Area], string>}` : never;
export type MessageKey = AreaKeys<keyof Areas>;
export type MessageParams = Record<string, PrimitiveType | Date>;

export const LOCALES = ['en'] as const;
export const PSEUDO_LOCALE = 'en-XA';
export type Locale = (typeof LOCALES)[number] | typeof PSEUDO_LOCALE;
export const DEFAULT_LOCALE: Locale = 'en';

export const PSEUDO_OPEN = '⟦';
export const PSEUDO_CLOSE = '⟧';

const english = new Map<string, string>();
for (const [area, messages] of Object.entries(AREAS)) {
  for (const [key, text] of Object.entries(messages as Record<string, string>)) english.set(`${area}.${key}`, text);
}

const storage = new AsyncLocalStorage<Locale>();

/** Runs `fn` with `locale` as the locale of every message it formats (also across its awaits). */
export function withLocale<T>(locale: Locale, fn: () => T): T {
  return storage.run(locale, fn);
}

export function currentLocale(): Locale {
  return storage.getStore() ?? DEFAULT_LOCALE;
}

const compiled = new Map<string, IntlMessageFormat>();

function formatter(key: string): IntlMessageFormat {
  let format = compiled.get(key);
  if (!format) {
    const text = english.get(key);
    if (text === undefined) throw new Error(`message catalogue: no message ${key}`);
    // The formats use English rules for English and the pseudo-locale alike.
    format = new IntlMessageFormat(text, 'en', undefined, { ignoreTag: true });
    compiled.set(key, format);
  }
  return format;
}

/** The message `key` in the current locale, with its parameters formatted. */
export function t(key: MessageKey, params?: MessageParams): string {
  const text = String(formatter(key).format(params as Record<string, PrimitiveType>));
  return currentLocale() === PSEUDO_LOCALE ? `${PSEUDO_OPEN}${text}${PSEUDO_CLOSE}` : text;
}

/** Whether the catalogue has `key` (for keys made from data, such as a status: `app.status.${status}`). */
export function hasMessage(key: string): key is MessageKey {
  return english.has(key);
}

/**
 * The raw messages of one area whose keys start with `prefix`, for the browser: the page embeds
 * them (as JSON) and api/app/browser/messages.js formats them. In the pseudo-locale each is wrapped
 * like t() wraps it.
 */
export function messagesFor(prefix: MessageKey extends `${infer Area}.${string}` ? `${Area}.${string}` : never): Record<string, string> {
  const pseudo = currentLocale() === PSEUDO_LOCALE;
  const out: Record<string, string> = {};
  for (const [key, text] of english) {
    if (key.startsWith(prefix)) out[key] = pseudo ? `${PSEUDO_OPEN}${text}${PSEUDO_CLOSE}` : text;
  }
  return out;
}

/** Every key of the catalogue (tests). */
export function messageKeys(): string[] {
  return [...english.keys()];
}

const MOMENT_PARTS = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/**
 * A moment as people read it, in UTC, to the minute: the parts come from Intl.DateTimeFormat and
 * their order and words from the catalogue (`common.moment`: "2026-11-29 09:05 UTC" in English).
 */
export function formatMoment(date: Date): string {
  const parts = Object.fromEntries(MOMENT_PARTS.formatToParts(date).map((part) => [part.type, part.value]));
  return t('common.moment', { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute });
}

const DAY_PARTS = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit' });

/** A day in UTC (`common.day`: "2026-11-29" in English), the parts from Intl.DateTimeFormat. */
export function formatDay(date: Date): string {
  const parts = Object.fromEntries(DAY_PARTS.formatToParts(date).map((part) => [part.type, part.value]));
  return t('common.day', { year: parts.year, month: parts.month, day: parts.day });
}

/** The `lang` of a page in the current locale (the pseudo-locale is English underneath). */
export function htmlLang(): string {
  const locale = currentLocale();
  return locale === PSEUDO_LOCALE ? 'en' : locale;
}

import { type MessageKey, type MessageParams, messagesFor, t } from '../../lib/i18n';
import { type HtmlValue, html, joinHtml, type SafeHtml } from '../http/html';

/**
 * The browser's messages for a page: the catalogue's keys under `prefix` (e.g. `browser.sign.`),
 * in the request's locale, as the `<meta name="svc-messages">` that api/app/browser/messages.js reads.
 */
export function browserMessages(...prefixes: Parameters<typeof messagesFor>[0][]): SafeHtml {
  const messages = Object.assign({}, ...prefixes.map((prefix) => messagesFor(prefix)));
  return html`<meta name="svc-messages" content="${JSON.stringify(messages)}">`;
}

const MARK = '\u0001';

/**
 * A message with markup in it: `tHtml('app.terms', { link: html`<a href="…">${t('app.terms.link')}</a>` })`.
 * Text parameters are formatted as in t(); markup parameters are placed where the message names them,
 * and the message's own text is escaped, so the sentence's word order stays the catalogue's.
 */
export function tHtml(key: MessageKey, params: Record<string, HtmlValue | Date>): SafeHtml {
  const markup: HtmlValue[] = [];
  const formatted: MessageParams = {};
  for (const [name, value] of Object.entries(params)) {
    if (value instanceof Date || typeof value === 'string' || typeof value === 'number') formatted[name] = value;
    else {
      formatted[name] = `${MARK}${markup.length}${MARK}`;
      markup.push(value);
    }
  }
  const parts = t(key, formatted).split(MARK);
  // Odd parts are the indexes of markup parameters; even parts the message's text.
  return joinHtml(
    parts.map((part, index) => (index % 2 === 1 ? markup[Number(part)] : part)),
    '',
  );
}

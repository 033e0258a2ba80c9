// @ts-check
/**
 * The browser half of the message catalogue (lib/i18n): the page carries the messages it needs in
 * `<meta name="svc-messages" content="{json}">` (api/app/messages.ts writes it, already in the
 * page's locale), and `t` formats one by key. Parameters are `{name}`; a count picks `<key>.one`,
 * `<key>.other` … by Intl.PluralRules (`tn`).
 */

/** @type {Record<string, string> | undefined} */
let messages;

/** @returns {Record<string, string>} */
function catalogue() {
  if (!messages) {
    const meta = /** @type {HTMLMetaElement | null} */ (document.querySelector('meta[name="svc-messages"]'));
    messages = meta ? JSON.parse(meta.content) : {};
  }
  return /** @type {Record<string, string>} */ (messages);
}

/**
 * The message `key` with its `{name}` parameters filled in; a key the page lacks shows as itself,
 * so a missing message is visible (and fails test/catalogue.ts's check).
 * @param {string} key
 * @param {Record<string, string | number>} [params]
 * @returns {string}
 */
export function t(key, params = {}) {
  const text = catalogue()[key];
  if (text === undefined) return key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/**
 * The plural form of `key` for `count` (`<key>.one`, `<key>.other` …, by the page's language),
 * with `{count}` and the other parameters filled in.
 * @param {string} key
 * @param {number} count
 * @param {Record<string, string | number>} [params]
 * @returns {string}
 */
export function tn(key, count, params = {}) {
  const form = new Intl.PluralRules(document.documentElement.lang || 'en').select(count);
  const chosen = `${key}.${form}` in catalogue() ? `${key}.${form}` : `${key}.other`;
  return t(chosen, { count: new Intl.NumberFormat(document.documentElement.lang || 'en').format(count), ...params });
}

/**
 * The message `key` with elements in it: each `{name}` whose parameter is a Node is that node, the
 * rest is text as t() makes it; the parts go to append() or h(), so the sentence's word order stays
 * the catalogue's.
 * @param {string} key
 * @param {Record<string, string | number | Node>} params
 * @returns {(string | Node)[]}
 */
export function tParts(key, params) {
  /** @type {Record<string, string | number>} */
  const text = {};
  /** @type {Node[]} */
  const markup = [];
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'string' || typeof value === 'number') text[name] = value;
    else {
      text[name] = `\u0001${markup.length}\u0001`;
      markup.push(value);
    }
  }
  return t(key, text)
    .split('\u0001')
    .map((part, index) => (index % 2 === 1 ? markup[Number(part)] : part))
    .filter((part) => part !== '');
}

// Building DOM nodes without innerHTML: the pages' CSP allows no inline script or style, and text
// set this way is never parsed as markup.

/** @typedef {Node | string | null | undefined | false | readonly unknown[]} Child a node, text, nothing, or a list of these */

/**
 * Children as append() takes them: nested lists flattened, absent ones (null, false) dropped.
 * @param {...Child} children
 * @returns {(Node | string)[]}
 */
export const nodes = (...children) =>
  /** @type {(Node | string)[]} */ (children.flat(Infinity).filter((child) => child !== null && child !== undefined && child !== false));

/**
 * An element with attributes, `on<event>` listeners, `testid` as data-testid, and children.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any> | null} props
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'testid') el.dataset.testid = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  el.append(...nodes(children));
  return el;
}

// What every part of the sign page shares: its elements, the signer's progress, the API of the
// sign link, and the alert and status regions. The rules (who may sign, what is stamped where, which
// fields are required) come from the server's state; the page only shows them.

/** @typedef {import('../../../activities/signers/wire').SignState} SignState */
/** @typedef {import('../../../activities/signers/wire').SignStateWidget} SignStateWidget */
/** @typedef {import('../../../activities/signers/wire').WireError} WireError */
/** @typedef {{ method: 'drawn' | 'typed' | 'uploaded', image: string }} Signature */
/** @typedef {import('./sign-viewer.js').Viewer} Viewer */

import { t } from './messages.js';

// The page (api/app/sign/page.ts) always renders these.
export const root = /** @type {HTMLElement} */ (document.getElementById('sign'));
export const base = /** @type {string} */ (root.dataset.base);
export const view = /** @type {HTMLElement} */ (document.getElementById('view'));
const alertBox = /** @type {HTMLElement} */ (root.querySelector('[data-testid="alert"]'));
const statusBox = /** @type {HTMLElement} */ (root.querySelector('[data-testid="status"]'));

/**
 * What the signer has done so far (values holds answers only: a blank one is none); kept across re-renders of the state.
 * `state` is loaded by sign.js's openDocument before anything that reads it is rendered.
 * @type {{ state: SignState, signature: Signature | null, initials: string | null, values: Record<string, string | boolean>,
 *   consent: boolean, busy: boolean, viewer: Viewer | null, recheck: ReturnType<typeof setTimeout> | 0, zoom: number }}
 */
export const S = {
  state: /** @type {SignState} */ (/** @type {unknown} */ (null)),
  signature: null,
  initials: null,
  values: {},
  consent: false,
  busy: false,
  viewer: null,
  recheck: 0,
  zoom: 1,
};
/**
 * Elements refresh() updates in place, so typing never loses focus.
 * @type {{ widgets: Record<string, HTMLElement>, [element: string]: any }}
 */
export const ui = { widgets: {} };

/** Forgets the elements of the previous render (ui is shared, so it is emptied, not replaced). */
/** @param {Record<string, HTMLElement>} fresh */
export function resetUi(fresh) {
  for (const key of Object.keys(ui)) delete ui[key];
  Object.assign(ui, { widgets: {} }, fresh);
}

/** The signer changed something: the panel listens and updates (see sign.js). */
export const changed = () => root.dispatchEvent(new Event('sign:change'));

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {WireError | undefined} error
   */
  constructor(status, error) {
    super(error?.message ?? t('browser.sign.error.status', { status }));
    this.status = status;
    this.code = error?.code;
    this.details = error?.details ?? [];
  }
}

/**
 * A call to the sign link's API; the callers say which answer they read (activities/signers/wire.ts).
 * @param {'GET' | 'POST'} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<{ status: number, body: any }>}
 */
export async function api(method, path, body) {
  let response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, { code: 'network', message: t('browser.sign.error.network') });
  }
  const text = await response.text();
  /** @type {{ error?: WireError }} */
  let json = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    // A proxy's HTML error page: the status alone explains it.
  }
  if (!response.ok) throw new ApiError(response.status, json.error);
  return { status: response.status, body: json };
}

/** @param {unknown} error an Error (ApiError: what the service said) or a message */
export function showError(error) {
  alertBox.textContent = error instanceof Error ? error.message : String(error);
  if (!(error instanceof ApiError)) console.error(error);
}

/** The sign page's state: what is shown and what the signer may do. @returns {Promise<SignState>} */
export const fetchState = async () => (await api('GET', '/state')).body;

export const clearError = () => (alertBox.textContent = '');
export const say = (/** @type {string} */ text) => (statusBox.textContent = text);
/** @param {SignStateWidget} widget */
export const labelOf = (widget) => widget.label || t(`browser.sign.widget.${widget.type}`);

/** A field the signer fills with a value (the server fills the others: auto_filled). */
/** @param {SignStateWidget} widget */
export const fillsIn = (widget) => widget.mine && !widget.auto_filled;
/** @param {SignStateWidget} widget */
export const answered = (widget) => S.values[widget.id] !== undefined || widget.prefill !== undefined;

// What every part of the sign page shares: its elements, the signer's progress, the API of the
// sign link, the alert and status regions, and small rules about widgets.

export const root = document.getElementById('sign');
export const base = root.dataset.base;
export const view = document.getElementById('view');
const alertBox = root.querySelector('[data-testid="alert"]');
const statusBox = root.querySelector('[data-testid="status"]');

export const FILLABLE = new Set(['text', 'checkbox', 'dropdown']);

/** What the signer has done so far; kept across re-renders of the state. */
export const S = { state: null, signature: null, initials: null, values: {}, consent: false, busy: false, viewer: null, recheck: 0 };
/** Elements refresh() updates in place, so typing never loses focus. */
export const ui = { widgets: {} };

/** Forgets the elements of the previous render (ui is shared, so it is emptied, not replaced). */
export function resetUi(fresh) {
  for (const key of Object.keys(ui)) delete ui[key];
  Object.assign(ui, { widgets: {} }, fresh);
}

/** The signer changed something: the panel listens and updates (see sign.js). */
export const changed = () => root.dispatchEvent(new Event('sign:change'));

export class ApiError extends Error {
  constructor(status, error) {
    super(error?.message ?? `The service answered ${status}. Try again in a moment.`);
    this.status = status;
    this.code = error?.code;
    this.details = error?.details ?? [];
  }
}

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
    throw new ApiError(0, { code: 'network', message: 'The service cannot be reached. Check your connection and try again.' });
  }
  const text = await response.text();
  let json = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    // A proxy's HTML error page: the status alone explains it.
  }
  if (!response.ok) throw new ApiError(response.status, json.error);
  return { status: response.status, body: json };
}

export function showError(error) {
  alertBox.textContent = error instanceof Error ? error.message : String(error);
  if (!(error instanceof ApiError)) console.error(error);
}

export const clearError = () => (alertBox.textContent = '');
export const say = (text) => (statusBox.textContent = text);
export const today = () => new Date().toISOString().slice(0, 10); // the server stamps the UTC date
export const labelOf = (widget) => widget.label || widget.type[0].toUpperCase() + widget.type.slice(1);

/** The first letter of each word, upper-cased: what the server stamps when no initials image is sent. */
export function initialsOf(name) {
  const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return name
    .normalize('NFC')
    .split(/\s+/u)
    .map((word) => [...graphemes.segment(word)].find((part) => /\p{L}/u.test(part.segment))?.segment ?? '')
    .join('')
    .toLocaleUpperCase();
}

export function isFilled(widget, value) {
  if (widget.type === 'checkbox') return value === true;
  if (widget.type === 'dropdown')
    return typeof value === 'string' && (widget.options?.length ? widget.options.includes(value) : value.trim() !== '');
  return typeof value === 'string' && value.trim() !== '';
}

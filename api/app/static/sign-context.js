// What every part of the sign page shares: its elements, the signer's progress, the API of the
// sign link, and the alert and status regions. The rules (who may sign, what is stamped where, which
// fields are required) come from the server's state; the page only shows them.

export const root = document.getElementById('sign');
export const base = root.dataset.base;
export const view = document.getElementById('view');
const alertBox = root.querySelector('[data-testid="alert"]');
const statusBox = root.querySelector('[data-testid="status"]');

/** What the signer has done so far (values holds answers only: a blank one is none); kept across re-renders of the state. */
export const S = {
  state: null,
  signature: null,
  initials: null,
  values: {},
  consent: false,
  busy: false,
  viewer: null,
  recheck: 0,
  zoom: 1,
};
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
export const labelOf = (widget) => widget.label || widget.type[0].toUpperCase() + widget.type.slice(1);

/** A field the signer fills with a value (the server fills the others: auto_filled). */
export const fillsIn = (widget) => widget.mine && !widget.auto_filled;
export const answered = (widget) => S.values[widget.id] !== undefined;

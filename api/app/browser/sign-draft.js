// What the signer entered, kept in this tab until their signature is on the document (a reload loses nothing).

import { base, S } from './sign-context.js';

const DRAFT_KEY = `sign-draft:${base}`;

export function saveDraft() {
  try {
    sessionStorage.setItem(DRAFT_KEY, JSON.stringify({ signature: S.signature, initials: S.initials, values: S.values }));
  } catch {
    // Storage full or off: the entries stay on this page only.
  }
}

export function restoreDraft() {
  try {
    const draft = JSON.parse(sessionStorage.getItem(DRAFT_KEY) ?? 'null');
    if (!draft) return;
    S.signature ??= draft.signature ?? null;
    S.initials ??= draft.initials ?? null;
    S.values = { ...(draft.values ?? {}), ...S.values };
  } catch {
    // A draft that does not parse is dropped.
  }
}

export const dropDraft = () => sessionStorage.removeItem(DRAFT_KEY);

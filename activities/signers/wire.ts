// What the sign link answers in JSON, declared once for both halves: the server builds its answers
// against these types (`satisfies`: activities/signers/state.ts, api/app/sign/router.ts) and the sign
// page's scripts (api/app/browser/sign*.js) read them through JSDoc, so a renamed or removed field
// fails the typecheck on both sides (api/app/browser/tsconfig.json; api/app/browser/typecheck.test.ts).
// Types only, and no import but the widget's stored shape: the browser's project reads this file.
import type { Widget } from '../../db/models/widget';

/** The states a document and a signer are in, as the page compares them (db/models/document.ts declares them). */
export type WireDocumentStatus = 'draft' | 'sent' | 'completed' | 'declined' | 'voided' | 'expired';
export type WireSignerStatus = 'pending' | 'signed' | 'declined';

/** A widget as the sign page shows it: what the service fills itself, with what, and what the signer still must. */
export interface SignStateWidget extends Widget {
  mine: boolean;
  /** Filled by the service (the signature and initials images, the date, name and e-mail), never by a value. */
  auto_filled: boolean;
  /** The text the service stamps on this signer's auto-filled widget (null for images and others' widgets). */
  text: string | null;
  /** Required of this signer and unfilled while no value is given: the page lists it until the signer answers. */
  unfilled: boolean;
}

/** The signer's latest signature: being applied (the page waits), or rejected with why (they can sign again). */
export interface SignApplyState {
  apply_id: string;
  status: 'processing' | 'applied' | 'rejected';
  error: { code: string; message: string } | null;
  updated_at: string;
}

/** GET <sign link>/state: what the sign page shows, so that it holds no rule. */
export interface SignState {
  document: {
    id: string;
    name: string;
    status: WireDocumentStatus;
    page_count: number;
    strict_order: boolean;
    sha256: string;
    /** Once completed: until when this link still serves the completed copy (ISO time). */
    completed_copy_until: string | null;
  };
  signer: {
    id: string;
    name: string;
    email: string;
    role: string;
    status: WireSignerStatus;
    signed_at: string | null;
    /** The letters stamped on initials widgets when the signer draws none. */
    initials: string;
  };
  signers: { name: string; role: string; status: WireSignerStatus }[];
  widgets: SignStateWidget[];
  apply: SignApplyState | null;
  can_sign: boolean;
  blocked_reason: string | null;
  consent_text: string;
}

/** POST <sign link>/code: where the code went (masked) and the challenge it works with. */
export interface SignCodeAnswer {
  sent_to: string;
  challenge: string;
}

/** POST <sign link>/verify. */
export interface SignVerifyAnswer {
  verified: true;
}

/** POST <sign link>/sign: 202 `processing` while the signature is applied, 200 `signed`. */
export interface SignSubmitAnswer {
  status: 'processing' | 'signed';
  document_status: string;
  document_hash: string | null;
}

/** POST <sign link>/decline. */
export interface SignDeclineAnswer {
  status: 'declined';
  document_status: string;
}

/** Any refusal of the sign link: `{ error }` (lib/errors). */
export interface WireError {
  code: string;
  message: string;
  details?: { path?: string; message: string }[];
}

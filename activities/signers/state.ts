import { autoFilledText } from '../../lib/pdf/stamp';
import { AUTO_FILLED, unfilledWidgets, type Widget } from '../../lib/pdf/widgets';
import { widgetsOf } from '../documents/apply';
import { CONSENT_TEXT } from './sign';
import type { SignerView } from './sign-link';
import { maySignNow, waitingFor } from './turn';

/** A widget as the sign page shows it: what the service fills itself, with what, and what the signer still must. */
export interface StateWidget extends Widget {
  mine: boolean;
  /** Filled by the service (the signature and initials images, the date, name and e-mail), never by a value. */
  auto_filled: boolean;
  /** The text the service stamps on this signer's auto-filled widget (null for images and others' widgets). */
  text: string | null;
  /** Required of this signer and unfilled while no value is given: the page lists it until the signer answers. */
  unfilled: boolean;
}

/**
 * What the sign page needs to show and sign, so that it holds no rule: whether the signer may sign
 * now (and why not), and per widget what is filled for them and what they still must fill.
 */
export function signerState(view: SignerView, now = new Date()) {
  const { signer, document, signers } = view;
  const before = waitingFor(document, signers, signer);
  const unfilled = new Set(unfilledWidgets(widgetsOf(document, signer), {}).map((widget) => widget.id));
  return {
    document: {
      id: document.id,
      name: document.name,
      status: document.status,
      page_count: document.page_count,
      strict_order: document.strict_order,
      sha256: document.current_sha256,
    },
    signer: {
      id: signer.id,
      name: signer.name,
      email: signer.email,
      role: signer.role,
      status: signer.status,
      signed_at: signer.signed_at?.toISOString() ?? null,
      /** The letters stamped on initials widgets when the signer draws none. */
      initials: autoFilledText('initials', signer, now) ?? '',
    },
    signers: signers.map((s) => ({ name: s.name, role: s.role, status: s.status })),
    widgets: document.widgets.map((widget): StateWidget => {
      const mine = widget.role === signer.role;
      return {
        ...widget,
        mine,
        auto_filled: AUTO_FILLED.has(widget.type),
        text: (mine && autoFilledText(widget.type, signer, now)) || null,
        unfilled: unfilled.has(widget.id),
      };
    }),
    can_sign: document.status === 'sent' && maySignNow(document, signers, signer),
    blocked_reason: before.length > 0 ? `Waiting for ${before.map((s) => s.name).join(', ')} to sign first.` : null,
    consent_text: CONSENT_TEXT,
  };
}

export type SignerState = ReturnType<typeof signerState>;

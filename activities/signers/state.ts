import type { Db } from '../../db/connect';
import { Apply } from '../../db/models';
import type { Config } from '../../lib/config/config';
import { t } from '../../lib/i18n';
import { autoFilledText } from '../../lib/pdf/stamp';
import { AUTO_FILLED, lockedPrefill, unfilledWidgets } from '../../lib/pdf/widgets';
import { widgetsOf } from '../apply/apply-check';
import { applyState } from '../apply/apply-outcome';
import { maySignNow, waitingFor } from '../documents/turn';
import { CONSENT_TEXT, completedCopyUntil } from './sign';
import type { SignerView } from './sign-link';
import type { SignState, SignStateWidget } from './wire';

/** A widget as the sign page shows it (declared with the page's other wire types, activities/signers/wire.ts). */
export type StateWidget = SignStateWidget;

/**
 * What the sign page needs to show and sign, so that it holds no rule: whether the signer may sign
 * now (and why not), and per widget what is filled for them and what they still must fill.
 */
export function signerState(view: SignerView, options: { lastApply?: Apply; copyUntil?: Date | null } = {}, now = new Date()) {
  const { lastApply, copyUntil } = options;
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
      /** Once completed: until when this link still serves the completed copy. */
      completed_copy_until: copyUntil?.toISOString() ?? null,
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
    // A field the sender's locked value fills is in the PDF itself, shown as the page shows the rest of it.
    widgets: document.widgets
      .filter((widget) => !lockedPrefill(widget))
      .map((widget): StateWidget => {
        const mine = widget.role === signer.role;
        return {
          ...widget,
          mine,
          auto_filled: AUTO_FILLED.has(widget.type),
          text: (mine && autoFilledText(widget.type, signer, now)) || null,
          unfilled: unfilled.has(widget.id),
        };
      }),
    /** The signer's latest signature: being applied (the page waits), or rejected with why (they can sign again). */
    apply: lastApply ? applyState(lastApply) : null,
    can_sign: document.status === 'sent' && maySignNow(document, signers, signer),
    blocked_reason: before.length > 0 ? t('sign.state.waiting_for', { names: before.map((s) => s.name).join(', ') }) : null,
    consent_text: CONSENT_TEXT,
  } satisfies SignState;
}

export type SignerState = ReturnType<typeof signerState>;

/** The sign page's state with the signer's latest apply read alongside. */
export async function signerStateOf(deps: { db: Db; config: Pick<Config, 'durations'> }, view: SignerView) {
  const lastApply = view.signer.last_apply_id ? await Apply.query(deps.db).findById(view.signer.last_apply_id) : undefined;
  return signerState(view, { lastApply, copyUntil: completedCopyUntil(view.document, deps.config) });
}

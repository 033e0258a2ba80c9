// The stored shape of a field (the documents' and templates' `widgets` column): declared beside the
// models that hold it, so db/ names it without reaching up into lib/pdf/, whose rules read it.
export const WIDGET_TYPES = ['signature', 'initials', 'date', 'name', 'email', 'text', 'checkbox', 'dropdown', 'radio'] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];

/** A field on a page. Coordinates are PDF points, origin at the TOP-LEFT of the page (y grows downwards), page is 1-based. */
export interface Widget {
  id: string;
  type: WidgetType;
  role: string;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  label?: string;
  /** The choices of a dropdown or a radio group (whose options the stamp lists, the chosen one marked). */
  options?: string[];
  /**
   * A value the document's sender gave by the field's name (`values` of POST /documents), stamped into
   * the document's first revision, so `pre_sign_hash` binds it. Locked, no signer fills it; `editable`
   * (text and dropdown), its signer may change it, and the change is audited (lib/pdf/editable.ts).
   */
  prefill?: { value: string | boolean; editable?: true };
}

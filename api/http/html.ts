/**
 * The one way pages make HTML: `html` escapes every interpolated value unless it is itself an `html`
 * result, so forgetting an escape is not possible (STYLE.md, habit 13). No raw escape hatch exists:
 * markup comes only from template literals written in code.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]);
}

/** Markup made by `html` or `joinHtml`; the class stays private to this module so nothing else can mint one. */
class SafeHtml {
  readonly #markup: string;

  constructor(markup: string) {
    this.#markup = markup;
  }

  toString(): string {
    return this.#markup;
  }
}

export type { SafeHtml };

/** What a template takes: text and numbers (escaped), markup, lists of these; null, undefined and false render nothing. */
export type HtmlValue = SafeHtml | string | number | false | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

// An unquoted attribute value (` value=${x}`) would let a space end it, which escaping cannot stop;
// the check depends only on the template's own text, so every render of a wrong template fails alike.
const UNQUOTED_ATTRIBUTE = /\s[^\s"'<>/=]+=$/;

/** A tagged template: html`<p title="${title}">${text}</p>`; attribute values must be quoted. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let markup = strings[0];
  values.forEach((value, index) => {
    if (UNQUOTED_ATTRIBUTE.test(strings[index]))
      throw new Error(`html: quote the attribute value before ${JSON.stringify(strings[index].slice(-40))}`);
    markup += render(value) + strings[index + 1];
  });
  return new SafeHtml(markup);
}

/** A list of values with a separator between them (escaped like any value unless it is markup). */
export function joinHtml(values: readonly HtmlValue[], separator: HtmlValue): SafeHtml {
  return new SafeHtml(values.map(render).join(render(separator)));
}

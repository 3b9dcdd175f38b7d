/**
 * HTML built from tagged templates: every interpolated value is escaped unless it is already
 * {@linkcode Html} (another template's result), so no text from the estate — a description, a
 * principal's id, a drift record — can become markup. Arrays are joined; `undefined`, `null` and
 * `false` render as nothing.
 *
 * @module
 */

/** A piece of markup, safe to insert as it is. */
export class Html {
  /** The markup. */
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

/** What a template takes: text (escaped), markup, numbers, lists of them, or nothing. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for an element's content or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(String(value));
}

/** Markup from a template, its values escaped. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

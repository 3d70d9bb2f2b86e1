/** Form controls the pages share: labelled selects and inputs, filter forms, pagers. */
import { html } from "hono/html";
import type { Html } from "./layout.js";

export function select(
  name: string,
  label: string,
  options: (string | [string, string])[],
  current: string | undefined,
  anyLabel?: string,
): Html {
  const id = `f-${name}`;
  return html`<label for="${id}">${label}<select id="${id}" name="${name}">${anyLabel === undefined ? "" : html`<option value="">${anyLabel}</option>`}${options.map(
    (o) => {
      const [value, text] = typeof o === "string" ? [o, o] : o;
      return html`<option value="${value}"${value === current ? html` selected` : ""}>${text}</option>`;
    },
  )}</select></label>`;
}

export function textInput(
  name: string,
  label: string,
  value: string | undefined,
  options: { required?: boolean; maxlength?: number; type?: string } = {},
): Html {
  const id = `f-${name}`;
  return html`<label for="${id}">${label}</label><input id="${id}" name="${name}" type="${options.type ?? "text"}" value="${value ?? ""}"${options.required ? html` required` : ""}${options.maxlength ? html` maxlength="${options.maxlength}"` : ""}>`;
}

export function textArea(name: string, label: string, value: string | undefined, maxlength = 20_000): Html {
  const id = `f-${name}`;
  return html`<label for="${id}">${label}</label><textarea id="${id}" name="${name}" maxlength="${maxlength}">${value ?? ""}</textarea>`;
}

export const PRIORITY_OPTIONS: [string, string][] = [
  ["1", "1 Critical"],
  ["2", "2 High"],
  ["3", "3 Medium"],
  ["4", "4 Low"],
];

/** A link to the same page with `cursor` set (the other query parameters kept). */
export function nextPageLink(url: string, cursor: string | undefined): Html {
  if (!cursor) return html``;
  const next = new URL(url);
  next.searchParams.set("cursor", cursor);
  return html`<nav class="pager" aria-label="Pages"><a href="${next.pathname}${next.search}" rel="next">Next page</a></nav>`;
}

/** Small view pieces the pages share: links to entities, badges, dates, priorities. */
import { html } from "hono/html";
import type { Html } from "./layout.js";

export const PRIORITY_LABEL: Record<number, string> = { 1: "Critical", 2: "High", 3: "Medium", 4: "Low" };

/** The page of an entity, from its reference id's prefix. */
export function hrefOf(referenceId: string): string {
  const id = encodeURIComponent(referenceId);
  if (referenceId.startsWith("EP-")) return `/epics/${id}`;
  if (referenceId.startsWith("US-")) return `/stories/${id}`;
  if (referenceId.startsWith("REQ-")) return `/requirements/${id}`;
  if (referenceId.startsWith("AC-")) return `/criteria/${id}`;
  return "/";
}

export function refLink(referenceId: string, title?: string): Html {
  return html`<a href="${hrefOf(referenceId)}"><span class="ref">${referenceId}</span>${title === undefined ? "" : html` ${title}`}</a>`;
}

export function badge(text: string, kind = ""): Html {
  const slug = text.toLowerCase().replace(/[^a-z0-9]+/g, "-");
  return html`<span class="badge ${kind} b-${slug}">${text}</span>`;
}

export function priority(p: number): Html {
  return badge(PRIORITY_LABEL[p] ?? String(p), "prio");
}

/** `2026-11-25T13:15:21.000Z` → `2026-11-25 13:15` in a <time> element carrying the exact value. */
export function when(iso: string | null | undefined): Html {
  if (!iso) return html``;
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace("T", " ")}</time>`;
}

export function section(title: string, id: string, body: Html): Html {
  return html`<section aria-labelledby="${id}"><h2 id="${id}">${title}</h2>${body}</section>`;
}

export function empty(text: string): Html {
  return html`<p class="empty">${text}</p>`;
}

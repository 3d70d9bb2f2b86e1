/**
 * A lean markdown renderer for requirement text (issue 13): headings, paragraphs, lists, block quotes,
 * fenced code, rules; inline code, strong, emphasis and links. Sanitised by construction, not by a
 * sanitizer: every character of the source is HTML-escaped, and the only tags are the ones written here,
 * with no attributes but a link's `href`, which must be http(s), mailto, a path of this site or a fragment
 * (javascript:, data: and every other scheme stay text). Raw HTML in the source shows as text.
 */
import { raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** A link target the renderer lets through, or undefined. */
export function safeHref(url: string): string | undefined {
  if (/^(https?:\/\/|mailto:)[^\s]+$/i.test(url)) return url;
  if (/^\/(?![/\\])[^\s]*$/.test(url) || /^#[^\s]*$/.test(url)) return url;
  return undefined;
}

const INLINE =
  /`([^`]+)`|\[([^\]]+)\]\(([^()\s]+)\)|\*\*(.+?)\*\*|(?<![\w*])\*([^*\s](?:[^*]*[^*\s])?)\*(?![\w*])|(?<![\w])_([^_\s](?:[^_]*[^_\s])?)_(?![\w])|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/g;

function inline(text: string): string {
  let out = "";
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    out += escapeHtml(text.slice(last, m.index));
    last = (m.index ?? 0) + m[0].length;
    if (m[1] !== undefined) out += `<code>${escapeHtml(m[1])}</code>`;
    else if (m[2] !== undefined) {
      const href = safeHref(m[3] as string);
      out += href
        ? `<a href="${escapeHtml(href)}" rel="nofollow noopener noreferrer">${inline(m[2])}</a>`
        : escapeHtml(m[0]);
    } else if (m[4] !== undefined) out += `<strong>${inline(m[4])}</strong>`;
    else if (m[5] !== undefined) out += `<em>${inline(m[5])}</em>`;
    else if (m[6] !== undefined) out += `<em>${inline(m[6])}</em>`;
    else if (m[7] !== undefined)
      out += `<a href="${escapeHtml(m[7])}" rel="nofollow noopener noreferrer">${escapeHtml(m[7])}</a>`;
  }
  return out + escapeHtml(text.slice(last));
}

type ListKind = "ul" | "ol";

/** Markdown → HTML (escaped by construction: see the module comment). */
export function renderMarkdown(source: string): string {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let paragraph: string[] = [];
  let list: { kind: ListKind; items: string[] } | undefined;
  let quote: string[] | undefined;
  const flushParagraph = () => {
    if (paragraph.length > 0) out.push(`<p>${paragraph.map(inline).join("<br>")}</p>`);
    paragraph = [];
  };
  const flushList = () => {
    if (list)
      out.push(`<${list.kind}>${list.items.map((i) => `<li>${inline(i)}</li>`).join("")}</${list.kind}>`);
    list = undefined;
  };
  const flushQuote = () => {
    if (quote) out.push(`<blockquote>${renderMarkdown(quote.join("\n"))}</blockquote>`);
    quote = undefined;
  };
  const flush = () => {
    flushParagraph();
    flushList();
    flushQuote();
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const fence = /^\s*(```+|~~~+)/.exec(line);
    if (fence) {
      flush();
      const code: string[] = [];
      const close = fence[1] as string;
      for (i++; i < lines.length && !(lines[i] as string).trim().startsWith(close); i++)
        code.push(lines[i] as string);
      out.push(`<pre><code>${escapeHtml(code.join("\n"))}</code></pre>`);
      continue;
    }
    const q = /^\s*>\s?(.*)$/.exec(line);
    if (q) {
      flushParagraph();
      flushList();
      quote ??= [];
      quote.push(q[1] as string);
      continue;
    }
    flushQuote();
    if (line.trim() === "") {
      flushParagraph();
      flushList();
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      // Page headings are h1/h2: text headings start at h3 so the outline stays in order.
      const level = Math.min(6, (heading[1] as string).length + 2);
      out.push(`<h${level}>${inline(heading[2] as string)}</h${level}>`);
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      out.push("<hr>");
      continue;
    }
    const item = /^\s*(?:([-*+])|(\d{1,9})[.)])\s+(.*)$/.exec(line);
    if (item) {
      flushParagraph();
      const kind: ListKind = item[1] ? "ul" : "ol";
      if (list && list.kind !== kind) flushList();
      list ??= { kind, items: [] };
      list.items.push(item[3] as string);
      continue;
    }
    if (list && /^\s{2,}\S/.test(line)) {
      list.items[list.items.length - 1] += ` ${line.trim()}`;
      continue;
    }
    flushList();
    paragraph.push(line.trim());
  }
  flush();
  return out.join("\n");
}

/** The rendered markdown as an HTML fragment for hono/html (safe: renderMarkdown escapes everything). */
export function markdown(source: string): HtmlEscapedString {
  return raw(`<div class="markdown">${renderMarkdown(source)}</div>`) as HtmlEscapedString;
}

/**
 * What every entity page shows the same way: fields, history with a diff between any two revisions,
 * comments with a comment form, verdicts with approve / request-changes forms.
 */
import { diffWords } from "diff";
import { html } from "hono/html";
import { csrfField, type Html } from "../layout.js";
import { markdown } from "../markdown.js";
import type { PageContext } from "../page.js";
import { badge, empty, section, when } from "../view.js";
import type { Comment, Diff, Page, Revision, Verdict } from "./shapes.js";

export function fields(rows: [string, Html | string | number | null | undefined][]): Html {
  return html`<dl class="fields">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v ?? "—"}</dd>`)}</dl>`;
}

/** A changed value: a word diff for text, old → new otherwise. */
export function changeValue(from: unknown, to: unknown): Html {
  if (typeof from === "string" && typeof to === "string") {
    return html`<div class="diff">${diffWords(from, to).map((part) =>
      part.added
        ? html`<ins>${part.value}</ins>`
        : part.removed
          ? html`<del>${part.value}</del>`
          : part.value,
    )}</div>`;
  }
  const show = (v: unknown) =>
    v === null || v === undefined ? "—" : typeof v === "string" ? v : JSON.stringify(v);
  return html`<div class="diff"><del>${show(from)}</del> → <ins>${show(to)}</ins></div>`;
}

export function diffView(diff: Diff): Html {
  return html`<p>Revision ${diff.from.revision} (${diff.from.username ?? "unknown"}, ${when(diff.from.created_at)}) → revision ${diff.to.revision} (${diff.to.username ?? "unknown"}, ${when(diff.to.created_at)})</p>
${
  diff.changes.length === 0
    ? empty("No field changed.")
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Field</th><th scope="col">Change</th></tr></thead><tbody>${diff.changes.map(
        (c) => html`<tr><th scope="row">${c.field}</th><td>${changeValue(c.from, c.to)}</td></tr>`,
      )}</tbody></table></div>`
}`;
}

/** History (newest first) with a form choosing two revisions to compare; the diff when both are chosen. */
export async function historySection(p: PageContext, id: string, path: string): Promise<Html> {
  const history = await p.read<Page<Revision>>("get_history", { id, limit: 100 });
  const own = history.items.filter((r) => r.reference_id === id);
  const from = Number(p.query("from"));
  const to = Number(p.query("to"));
  let diff: Html = html``;
  if (Number.isInteger(from) && from > 0) {
    const found = await p.call<Diff>("diff_revisions", {
      id,
      from,
      ...(Number.isInteger(to) && to > 0 ? { to } : {}),
    });
    diff = found.ok
      ? html`<div id="diff">${diffView(found.value)}</div>`
      : html`<p class="notice error" role="alert">${found.error.message}</p>`;
  }
  const options = (selected: number) =>
    own.map(
      (r) =>
        html`<option value="${r.revision}"${r.revision === selected ? html` selected` : ""}>r${r.revision} ${r.op}</option>`,
    );
  const latest = own[0]?.revision ?? 1;
  const compare =
    own.length > 1
      ? html`<form method="get" action="${path}" class="filters"><label for="h-from">From<select id="h-from" name="from">${options(from || (own[1]?.revision ?? 1))}</select></label>
<label for="h-to">To<select id="h-to" name="to">${options(to || latest)}</select></label><button type="submit">Compare</button></form>`
      : "";
  const list = html`<ol class="plain changes">${history.items.map(
    (r) =>
      html`<li>${when(r.created_at)} <strong>r${r.revision}</strong> ${r.op}${r.reference_id === id ? "" : html` <span class="ref">${r.reference_id}</span>`} by ${r.username ?? "unknown"}${r.tool ? html` <span class="muted">via ${r.tool}</span>` : ""}${r.change_note ? html` — ${r.change_note}` : ""}</li>`,
  )}</ol>`;
  return section("History", "history", html`${compare}${diff}${list}`);
}

export async function commentsSection(p: PageContext, id: string): Promise<Html> {
  const { comments } = await p.read<{ comments: Comment[] }>("list_comments", { id });
  const list =
    comments.length === 0
      ? empty("No comments yet.")
      : html`${comments.map(
          (c) =>
            html`<article class="comment"><p class="muted">${c.username ?? "unknown"} on r${c.revision}, ${when(c.created_at)}${c.resolved ? html` ${badge("resolved")}` : ""}</p>${markdown(c.text)}</article>`,
        )}`;
  const form = html`<form method="post" action="/comments" class="stack">${csrfField(p.csrf)}<input type="hidden" name="id" value="${id}">
<label for="comment-text">Add a comment</label><textarea id="comment-text" name="text" required maxlength="10000"></textarea><button type="submit">Comment</button></form>`;
  return section("Comments", "comments", html`${list}${form}`);
}

export async function verdictsSection(p: PageContext, id: string, revision: number): Promise<Html> {
  const { verdicts } = await p.read<{ verdicts: Verdict[] }>("list_verdicts", { id });
  const list =
    verdicts.length === 0
      ? empty("No approvals or change requests yet.")
      : html`<ul class="plain">${verdicts.map(
          (v) =>
            html`<li>${badge(v.verdict.replace("_", " "))} by ${v.username} on r${v.revision}${v.current ? "" : html` <span class="muted">(void: changed since)</span>`} ${when(v.created_at)}${v.comment ? html` — ${v.comment}` : ""}</li>`,
        )}</ul>`;
  const forms = p.canEdit
    ? html`<form method="post" action="/verdicts" class="stack">${csrfField(p.csrf)}<input type="hidden" name="id" value="${id}"><input type="hidden" name="revision" value="${revision}">
<label for="verdict-comment">Comment (required to request changes)</label><textarea id="verdict-comment" name="comment" maxlength="10000"></textarea>
<div><button type="submit" name="verdict" value="approved">Approve r${revision}</button> <button type="submit" name="verdict" value="changes_requested" class="secondary">Request changes</button></div></form>`
    : "";
  return section("Approvals", "approvals", html`${list}${forms}`);
}

/**
 * The web app's one script (progressive enhancement: every page works without it). Filter selects submit
 * their form on change; "/" focuses the search box; a form with unsaved edits asks before leaving; a new
 * token's page is not posted again on reload.
 * Built by esbuild (scripts/build-web.mjs) into public/assets/app.js.
 * (Elements are cast: the project's types include @cloudflare/workers-types, whose `Element` shadows the DOM's.)
 */
import { drawGraphs } from "./graph.js";

const all = <T>(selector: string): T[] => Array.from(document.querySelectorAll(selector)) as unknown as T[];

for (const select of all<HTMLSelectElement>("form[data-autosubmit] select")) {
  select.addEventListener("change", () => select.form?.requestSubmit());
}

document.addEventListener("keydown", (event) => {
  const target = event.target as HTMLElement | null;
  const typing = target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  if (event.key !== "/" || typing || event.ctrlKey || event.metaKey || event.altKey) return;
  const search = all<HTMLInputElement>("input[type=search]")[0];
  if (search) {
    event.preventDefault();
    search.focus();
  }
});

for (const form of all<HTMLFormElement>("form[data-guard]")) {
  let dirty = false;
  form.addEventListener("input", () => {
    dirty = true;
  });
  form.addEventListener("submit", () => {
    dirty = false;
  });
  window.addEventListener("beforeunload", (event) => {
    if (dirty) event.preventDefault();
  });
}

// A new token is on the answer to its create form only: the history entry becomes a plain GET of the page,
// so a reload or Back shows the list again instead of posting the form a second time (a second token).
const secret = document.getElementById("new-token") as HTMLInputElement | null;
if (secret) {
  history.replaceState(null, "", location.href);
  secret.addEventListener("focus", () => secret.select());
}

drawGraphs(document);

/**
 * The page frame every web page shares: one stylesheet, one deferred script (progressive enhancement only:
 * every page works without it), a skip link, the header with the workspace and the signed-in user, and a
 * sign-out form. Text goes through `hono/html`, which escapes every interpolated value; `raw` is used only
 * for HTML this layer built itself (the markdown renderer's output, already escaped).
 */
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { AuthInfo } from "../core/auth-info.js";
import { type Role, roleAtLeast } from "../core/roles.js";
import { CSRF_FIELD } from "./csrf.js";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export interface LayoutProps {
  title: string;
  /** Signed in: the caller (header with workspace, user, sign-out). */
  auth?: AuthInfo;
  csrf?: string;
  /** Which top-level section the page belongs to (marked in the navigation). */
  section?: "home" | "tree" | "search" | "baselines" | "docsets" | "audit" | "tokens" | "apps" | "other";
  body: Html;
}

const NAV: { href: string; label: string; section: LayoutProps["section"]; role?: Role }[] = [
  { href: "/", label: "Home", section: "home" },
  { href: "/tree", label: "Requirements", section: "tree" },
  { href: "/search", label: "Search", section: "search" },
  { href: "/baselines", label: "Baselines", section: "baselines" },
  { href: "/docsets", label: "Docs", section: "docsets" },
  { href: "/audit", label: "Audit log", section: "audit", role: "admin" },
  { href: "/tokens", label: "My tokens", section: "tokens" },
  { href: "/authorized-clients", label: "Connected apps", section: "apps" },
];

export function csrfField(csrf: string | undefined): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${csrf ?? ""}">`;
}

export function layout(props: LayoutProps): Html {
  const { auth } = props;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${props.title} · reqlix</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/app.css">
<script src="/assets/app.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="/">reqlix</a>
${
  auth
    ? html`<nav aria-label="Main"><ul>${NAV.filter((n) => !n.role || roleAtLeast(auth.role, n.role)).map(
        (n) =>
          html`<li><a href="${n.href}"${n.section === props.section ? html` aria-current="page"` : ""}>${n.label}</a></li>`,
      )}</ul></nav>
<div class="who"><a href="/workspaces" title="workspace (choose another)">${auth.workspaceSlug}</a> · <a href="/account/password" title="account: change password">${auth.username}</a> <span class="role">${auth.role}</span>
<form method="post" action="/signout" class="inline">${csrfField(props.csrf)}<button type="submit" class="link">Sign out</button></form></div>`
    : ""
}
</header>
<main id="main" tabindex="-1">
${props.body}
</main>
</body>
</html>`;
}

/** A message box (error, conflict, notice); role=alert for errors so screen readers announce them. */
export function notice(kind: "error" | "ok" | "info", text: Html | string): Html {
  return html`<div class="notice ${kind}"${kind === "error" ? html` role="alert"` : ""}>${text}</div>`;
}

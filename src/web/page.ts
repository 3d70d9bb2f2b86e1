/**
 * The page-route pattern of the web app. A page is `pages.get(path, async (p) => p.page(title, body))`:
 *
 *   pages.get("/requirements/:id", async (p) => {
 *     const req = await p.read("get_requirement", { requirement_id: p.param("id") });   // a registry tool
 *     return p.page(req.reference_id, html`<h1>${req.title}</h1>`, { section: "tree" });
 *   });
 *   pages.post("/requirements/:id/comments", async (p) => {                            // CSRF already checked
 *     const form = await p.form();
 *     const done = await p.call("add_comment", { id: p.param("id"), text: form.text });
 *     return done.ok ? p.redirect(`/requirements/${p.param("id")}#comments`) : p.failed(done.error);
 *   });
 *
 * Security headers, session and CSRF check (the guards from routes.ts) run before every page. `read`
 * throws a tool's DomainError, shown as an error page with the matching HTTP status (not_found 404,
 * forbidden 403, …); `call` returns it for the page to show next to its form.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import { html } from "hono/html";
import type { AuthInfo } from "../core/auth-info.js";
import { ERROR_TABLE } from "../core/error-table.js";
import { type DomainError, isDomainError } from "../core/errors.js";
import { roleAtLeast } from "../core/roles.js";
import type { WebDeps, WebEnv } from "./context.js";
import { formOf } from "./csrf.js";
import { type Html, type LayoutProps, layout, notice } from "./layout.js";
import { callTool, readTool, type ToolResult } from "./tools.js";

export function statusOf(error: DomainError): number {
  return ERROR_TABLE[error.code]?.status ?? 500;
}

export interface PageContext {
  c: Context<WebEnv>;
  auth: AuthInfo;
  csrf: string;
  /** The caller may edit (editor or admin): forms are shown; the tools decide in the end. */
  canEdit: boolean;
  param(name: string): string;
  query(name: string): string | undefined;
  form(): Promise<Record<string, string>>;
  read<T = Record<string, unknown>>(tool: string, args: Record<string, unknown>): Promise<T>;
  call<T = Record<string, unknown>>(tool: string, args: Record<string, unknown>): Promise<ToolResult<T>>;
  page(
    title: string,
    body: Html,
    options?: { section?: LayoutProps["section"]; status?: number },
  ): Promise<Response>;
  redirect(location: string): Response;
  /** A page saying what the tool refused, with its status. */
  failed(error: DomainError, title?: string): Promise<Response>;
}

export type PageHandler = (p: PageContext) => Promise<Response>;

function pageContext(c: Context<WebEnv>, deps: WebDeps): PageContext {
  const auth = c.get("auth");
  const csrf = c.get("session").csrf;
  const p: PageContext = {
    c,
    auth,
    csrf,
    canEdit: roleAtLeast(auth.role, "editor"),
    param: (name) => c.req.param(name) ?? "",
    query: (name) => c.req.query(name),
    form: () => formOf(c),
    read: (tool, args) => readTool(c, deps, tool, args),
    call: (tool, args) => callTool(c, deps, tool, args),
    async page(title, body, options = {}) {
      const text = await layout({ title, auth, csrf, section: options.section ?? "other", body });
      return c.html(text, (options.status ?? 200) as 200);
    },
    redirect: (location) => c.redirect(location, 303),
    failed: (error, title) =>
      p.page(title ?? titleOf(error), html`<h1>${titleOf(error)}</h1>${notice("error", error.message)}`, {
        status: statusOf(error),
      }),
  };
  return p;
}

function titleOf(error: DomainError): string {
  switch (error.code) {
    case "not_found":
      return "Not found";
    case "forbidden":
      return "Not allowed";
    case "conflict":
      return "Conflict";
    case "invalid_input":
      return "Check the form";
    default:
      return "Something went wrong";
  }
}

/** Registers pages on `router`; a DomainError a page throws becomes its error page. */
export function pageRoutes(router: Hono<WebEnv>, deps: WebDeps, guards: MiddlewareHandler<WebEnv>[]) {
  const wrap = (handler: PageHandler) => async (c: Context<WebEnv>) => {
    const p = pageContext(c, deps);
    try {
      return await handler(p);
    } catch (error) {
      if (isDomainError(error)) return p.failed(error);
      throw error;
    }
  };
  // The guards run in order before the page (not hono/combine's `every`, which pulls a second router into
  // the Worker bundle).
  const handlers = (handler: PageHandler): MiddlewareHandler<WebEnv>[] => [
    ...guards,
    wrap(handler) as MiddlewareHandler<WebEnv>,
  ];
  return {
    get: (path: string, handler: PageHandler) => router.on("GET", [path], ...handlers(handler)),
    post: (path: string, handler: PageHandler) => router.on("POST", [path], ...handlers(handler)),
  };
}

export type Pages = ReturnType<typeof pageRoutes>;

/**
 * The web app (issue 13), mounted at `/` by createApp after the API routes. Order: security headers on
 * every web response → static assets (`/assets/*`, Node only: Workers serve them from `[assets]` before
 * the Worker runs) → sign-in and sign-out (no session needed) → session → CSRF → pages.
 *
 * To add a page: write `src/web/pages/<name>.ts` exporting `(pages: Pages, deps: WebDeps) => void` that
 * registers `pages.get`/`pages.post` (page.ts), add it to PAGE_MODULES below, and add its routes to the
 * generated role and tenant table in test/web/routes-table.ts.
 */
import { Hono } from "hono";
import type { WebDeps, WebEnv } from "./context.js";
import { requireCsrf } from "./csrf.js";
import { githubRoutes } from "./github.js";
import { invitationRoutes } from "./invitations.js";
import { oidcRoutes } from "./oidc.js";
import { type Pages, pageRoutes } from "./page.js";
import { accountPages } from "./pages/account.js";
import { auditPage } from "./pages/audit.js";
import { baselinePages } from "./pages/baselines.js";
import { docsetPages } from "./pages/docsets.js";
import { editPages } from "./pages/edit.js";
import { epicPages } from "./pages/epic.js";
import { graphPage } from "./pages/graph.js";
import { homePage } from "./pages/home.js";
import { oauthPages } from "./pages/oauth.js";
import { requirementPages } from "./pages/requirement.js";
import { reviewPages } from "./pages/review.js";
import { searchPage } from "./pages/search.js";
import { storyPages } from "./pages/story.js";
import { tokenPages } from "./pages/tokens.js";
import { treePage } from "./pages/tree.js";
import { workspacePages } from "./pages/workspaces.js";
import { securityHeaders } from "./security.js";
import { requireSession } from "./session.js";
import { signInRoutes } from "./sign-in.js";

export type PageModule = (pages: Pages, deps: WebDeps) => void;

// Order matters where paths overlap: `/epics/new` (edit.ts) must come before `/epics/:id`.
const PAGE_MODULES: PageModule[] = [
  homePage,
  treePage,
  searchPage,
  editPages,
  reviewPages,
  epicPages,
  storyPages,
  requirementPages,
  graphPage,
  baselinePages,
  docsetPages,
  auditPage,
  tokenPages,
  oauthPages,
  workspacePages,
  accountPages,
];

export function webRoutes(deps: WebDeps): Hono<WebEnv> {
  const web = new Hono<WebEnv>();
  // Middleware is attached per web route, never to "*": API paths and unknown paths keep their JSON answers.
  const headers = securityHeaders();
  if (deps.assets) {
    const assets = deps.assets;
    web.get("/assets/*", headers, async (c, next) => {
      const found = await assets(c.req.path, c.req.raw);
      if (found) return found;
      return next();
    });
  }
  web.route("/", signInRoutes(deps, headers));
  web.route("/", invitationRoutes(deps, headers));
  if (deps.oidc) web.route("/", oidcRoutes({ ...deps, oidc: deps.oidc }, headers));
  if (deps.github) web.route("/", githubRoutes({ ...deps, github: deps.github }, headers));
  const clock = deps.clock ?? (() => new Date());
  const guards = [headers, requireSession({ database: deps.database, clock }), requireCsrf()];
  const registry = pageRoutes(web, deps, guards);
  for (const module of PAGE_MODULES) module(registry, deps);
  return web;
}

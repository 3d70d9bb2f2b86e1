/**
 * Every route of the web app, with how to call it and who may: the table the role and tenant-isolation
 * tests (routes.test.ts) run in full, and which they check against the routes the app registers, so a new
 * page without a row fails. Add a row with each new page (the other engineer's pages included).
 */
import type { Role } from "../../src/core/roles.js";

export interface RouteContext {
  epic: string;
  story: string;
  requirement: string;
  criterion: string;
  /** A baseline of the epic and a docset with one page, both of this workspace. */
  baseline: string;
  docset: string;
  /** The current revision and updated_at of an entity (for edit forms and verdicts). */
  stamp(id: string): Promise<{ revision: string; updated_at: string }>;
  unique(): string;
  /** The id of a fresh token of `as`'s user (of this workspace's owner for "other" and "none"). */
  spareToken(as: Caller): Promise<number>;
  /** The query of a valid OAuth authorization request (a registered client, PKCE S256, state). */
  authorizeQuery(): string;
  /** The id of a fresh OAuth grant of `as`'s user (of this workspace's owner for "other" and "none"). */
  spareGrant(as: Caller): Promise<number>;
  /** Gives `as`'s user a new password (without ending their sessions) and returns it. */
  password(as: Caller): Promise<string>;
  /** The workspace `as` acts in. */
  workspaceOf(as: Caller): string;
}

/** Who makes the request: a role's member, a member of another workspace, or nobody signed in. */
export type Caller = Role | "other" | "none";

export interface RouteCase {
  method: "GET" | "POST";
  /** The route as registered (`/epics/:id`). */
  route: string;
  /** The least role that succeeds; "none" = no session needed. */
  role: Role | "none";
  /** The request: a concrete path and, for POST, the form (without _csrf). */
  request(ctx: RouteContext, as: Caller): Promise<{ path: string; form?: Record<string, string> }>;
  /** Status of a success (GET 200, POST 303). */
  ok: number;
  /** The entity the route reads or changes (another workspace must get 404 for it); none = workspace-wide. */
  tenantScoped: boolean;
}

const get = (
  route: string,
  role: Role,
  path: (c: RouteContext) => string,
  tenantScoped = true,
): RouteCase => ({
  method: "GET",
  route,
  role,
  request: async (c) => ({ path: path(c) }),
  ok: 200,
  tenantScoped,
});

const post = (route: string, role: Role, request: RouteCase["request"], tenantScoped = true): RouteCase => ({
  method: "POST",
  route,
  role,
  request,
  ok: 303,
  tenantScoped,
});

const work = (c: RouteContext, extra: Record<string, string> = {}) => ({
  title: `Title ${c.unique()}`,
  description: "Text",
  priority: "3",
  ...extra,
});

export const ROUTE_CASES: RouteCase[] = [
  get("/", "viewer", () => "/", false),
  get("/tree", "viewer", (c) => `/tree?epic=${c.epic}`),
  get("/search", "viewer", (c) => `/search?q=${c.requirement}`, false),
  get("/epics/:id", "viewer", (c) => `/epics/${c.epic}`),
  get("/stories/:id", "viewer", (c) => `/stories/${c.story}`),
  get("/requirements/:id", "viewer", (c) => `/requirements/${c.requirement}`),
  get("/epics/:id/graph", "viewer", (c) => `/epics/${c.epic}/graph`),
  get("/baselines", "viewer", () => "/baselines", false),
  get("/baselines/:name", "viewer", (c) => `/baselines/${encodeURIComponent(c.baseline)}`),
  get("/baseline-diff", "viewer", (c) => `/baseline-diff?from=${encodeURIComponent(c.baseline)}`),
  get("/docsets", "viewer", () => "/docsets", false),
  get("/docsets/:name", "viewer", (c) => `/docsets/${c.docset}?q=routes`),
  get("/audit", "admin", () => "/audit", false),
  { ...get("/criteria/:id", "viewer", (c) => `/criteria/${c.criterion}`), ok: 303 },
  get("/epics/new", "editor", () => "/epics/new", false),
  get("/stories/new", "editor", (c) => `/stories/new?epic=${c.epic}`, false),
  get("/requirements/new", "editor", (c) => `/requirements/new?story=${c.story}`, false),
  get("/criteria/new", "editor", (c) => `/criteria/new?story=${c.story}`, false),
  get("/epics/:id/edit", "editor", (c) => `/epics/${c.epic}/edit`),
  get("/stories/:id/edit", "editor", (c) => `/stories/${c.story}/edit`),
  get("/requirements/:id/edit", "editor", (c) => `/requirements/${c.requirement}/edit`),
  get("/criteria/:id/edit", "editor", (c) => `/criteria/${c.criterion}/edit`),
  post("/epics/new", "editor", async (c) => ({ path: "/epics/new", form: work(c) }), false),
  post("/stories/new", "editor", async (c) => ({ path: "/stories/new", form: work(c, { epic_id: c.epic }) })),
  post("/requirements/new", "editor", async (c) => ({
    path: "/requirements/new",
    form: work(c, { user_story_id: c.story, type: "Functional" }),
  })),
  post("/criteria/new", "editor", async (c) => ({
    path: "/criteria/new",
    form: { user_story_id: c.story, description: `Criterion ${c.unique()}` },
  })),
  post("/epics/:id/edit", "editor", async (c) => ({
    path: `/epics/${c.epic}/edit`,
    form: { ...(await c.stamp(c.epic)), title: `Epic ${c.unique()}` },
  })),
  post("/stories/:id/edit", "editor", async (c) => ({
    path: `/stories/${c.story}/edit`,
    form: { ...(await c.stamp(c.story)), title: `Story ${c.unique()}` },
  })),
  post("/requirements/:id/edit", "editor", async (c) => ({
    path: `/requirements/${c.requirement}/edit`,
    form: { ...(await c.stamp(c.requirement)), title: `Requirement ${c.unique()}` },
  })),
  post("/criteria/:id/edit", "editor", async (c) => ({
    path: `/criteria/${c.criterion}/edit`,
    form: { ...(await c.stamp(c.criterion)), description: `Criterion ${c.unique()}` },
  })),
  post("/comments", "viewer", async (c) => ({
    path: "/comments",
    form: { id: c.requirement, text: "A comment" },
  })),
  post("/verdicts", "editor", async (c) => ({
    path: "/verdicts",
    form: { id: c.requirement, revision: (await c.stamp(c.requirement)).revision, verdict: "approved" },
  })),
  post("/baselines", "editor", async (c) => ({
    path: "/baselines",
    form: { name: `b-${c.unique()}`, epic_id: c.epic },
  })),
  get("/tokens", "viewer", () => "/tokens", false),
  // The answer to a create is the page showing the new token once (no redirect that could show it again).
  {
    ...post(
      "/tokens",
      "viewer",
      async (c) => ({ path: "/tokens", form: { name: `t-${c.unique()}` } }),
      false,
    ),
    ok: 200,
  },
  // Each caller revokes a spare token of their own; another workspace's member names one of this workspace.
  post("/tokens/:id/revoke", "viewer", async (c, as) => ({
    path: `/tokens/${await c.spareToken(as)}/revoke`,
  })),
  // OAuth (issue 12): every member may authorize a client for themself, capped by their own role.
  get("/oauth/authorize", "viewer", (c) => `/oauth/authorize?${c.authorizeQuery()}`, false),
  post(
    "/oauth/authorize",
    "viewer",
    async (c) => ({
      path: "/oauth/authorize",
      form: { ...Object.fromEntries(new URLSearchParams(c.authorizeQuery())), decision: "approve" },
    }),
    false,
  ),
  get("/authorized-clients", "viewer", () => "/authorized-clients", false),
  // Each caller revokes a grant of their own; another workspace's member names one of this workspace.
  post("/authorized-clients/:id/revoke", "viewer", async (c, as) => ({
    path: `/authorized-clients/${await c.spareGrant(as)}/revoke`,
  })),
  // Sign-in (issue 12 item 4): the workspace chooser and the password change, for every member.
  get("/workspaces", "viewer", () => "/workspaces", false),
  // Choosing the workspace one is in: a redirect for every session (switching is in password-sign-in.test.ts).
  post(
    "/workspaces",
    "viewer",
    async (c, as) => ({ path: "/workspaces", form: { workspace: c.workspaceOf(as), next: "/tree" } }),
    false,
  ),
  get("/account/password", "viewer", () => "/account/password", false),
  post(
    "/account/password",
    "viewer",
    async (c, as) => {
      const current = await c.password(as);
      const next = `new password ${c.unique()}`;
      return { path: "/account/password", form: { current, new: next, confirm: next } };
    },
    false,
  ),
];

/**
 * Routes outside the table on purpose: sign-in and sign-out (tested in session.test.ts), invitations
 * (reached without a session: invitations.test.ts), the upstream provider's start and callback
 * (oidc-browser.test.ts, github-browser.test.ts), static files.
 */
export const ROUTES_WITHOUT_SESSION = [
  "GET /signin",
  "POST /signin",
  "POST /signout",
  "GET /invite",
  "POST /invite",
  "GET /signin/oidc",
  "GET /signin/oidc/callback",
  "GET /signin/github",
  "GET /signin/github/callback",
  "GET /assets/*",
];

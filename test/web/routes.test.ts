/**
 * Generated from the route table (routes-table.ts): every web route × role (none, viewer, editor, admin) ×
 * another workspace, over real HTTP and libSQL. The least role succeeds, every lower one is refused (403 for
 * a session, a sign-in redirect or 401 without one) and changes nothing; a member of another workspace gets
 * 404 for this workspace's entities. The table must list every route the app registers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword } from "../../src/core/password.js";
import { ROLES, type Role, roleAtLeast } from "../../src/core/roles.js";
import { createJsonLogger } from "../../src/http/logger.js";
import { nodeAssets } from "../../src/web/node-assets.js";
import { webRoutes } from "../../src/web/routes.js";
import type { HostedServer } from "../helpers/hosted.js";
import {
  authorizeQuery,
  grantTokens,
  pkcePair,
  type RegisteredClient,
  registerClient,
} from "../helpers/oauth-http.js";
import { seedHierarchy, toolHttp } from "../helpers/rpc-http.js";
import {
  type Caller,
  ROUTE_CASES,
  ROUTES_WITHOUT_SESSION,
  type RouteCase,
  type RouteContext,
} from "./routes-table.js";
import { startWebServer, WebClient } from "./web-client.js";

let server: HostedServer;
let ctx: RouteContext;
const clients = new Map<Role | "other", WebClient>();
const roleTokens = new Map<Role, string>();
let n = 0;
let oauthClient: RegisteredClient;

async function counts(): Promise<string> {
  const rs = await server.database.client.execute(
    "SELECT (SELECT count(*) FROM revisions) || '/' || (SELECT count(*) FROM comments) || '/' || (SELECT count(*) FROM approvals) || '/' || (SELECT count(*) FROM baselines) AS c",
  );
  return String(rs.rows[0]?.c);
}

beforeAll(async () => {
  server = await startWebServer();
  const seeded = await seedHierarchy(server.url, server.ownerToken, 1, "Routes");
  ctx = {
    epic: seeded.epics[0] as string,
    story: seeded.stories[0] as string,
    requirement: seeded.requirements[0] as string,
    criterion: seeded.criteria[0] as string,
    baseline: "Routes baseline 1",
    docset: "routes-docs",
    async stamp(id) {
      // A requirement's history also holds its relationships' revisions: only its own rows count here.
      const page = await toolHttp(server.url, server.ownerToken, "get_history", { id, limit: 100 });
      const items = page.items as {
        reference_id: string;
        snapshot: { revision: number; updated_at: string };
      }[];
      const snap = items.find((r) => r.reference_id === id)?.snapshot as {
        revision: number;
        updated_at: string;
      };
      return { revision: String(snap.revision), updated_at: snap.updated_at };
    },
    unique: () => `u${++n}`,
    async password(as: Caller) {
      const username = as === "other" ? "web-other" : as === "none" ? "admin" : `web-${as}`;
      const password = `password ${++n} of ${username}`;
      await server.database.client.execute({
        sql: "INSERT INTO user_credentials (user_id, password_hash) SELECT id, ? FROM users WHERE username = ? ON CONFLICT (user_id) DO UPDATE SET password_hash = excluded.password_hash",
        args: [await hashPassword(password), username],
      });
      return password;
    },
    workspaceOf: (as: Caller) => (as === "other" ? "other-ws" : "default"),
    async spareToken(as: Caller) {
      const token = as === "other" || as === "none" ? server.ownerToken : (roleTokens.get(as) as string);
      const created = await toolHttp(server.url, token, "create_my_token", { name: `spare ${++n}` });
      return created.id as number;
    },
    authorizeQuery: () => authorizeQuery(oauthClient, pkcePair().challenge),
    async spareGrant(as: Caller) {
      const web = new WebClient(server.url);
      await web.signIn(as === "other" || as === "none" ? server.ownerToken : (roleTokens.get(as) as string));
      await grantTokens(server.url, web, oauthClient, "reqlix:read");
      const rs = await server.database.client.execute("SELECT max(id) AS id FROM oauth_grants");
      return Number(rs.rows[0]?.id);
    },
  };
  oauthClient = await registerClient(server.url);
  const owner = (name: string, args: Record<string, unknown>) =>
    toolHttp(server.url, server.ownerToken, name, args);
  await owner("create_baseline", { name: ctx.baseline, epic_id: ctx.epic });
  await owner("register_docset", { name: ctx.docset, version: "1.0" });
  await owner("upload_docset_pages", {
    docset: ctx.docset,
    pages: [{ path: "guide.md", content: "# Routes guide\n\nHow routes work." }],
  });
  for (const role of ROLES) {
    const client = new WebClient(server.url);
    const token = await server.createToken(`web-${role}`, role);
    roleTokens.set(role, token);
    await client.signIn(token);
    clients.set(role, client);
  }
  const other = new WebClient(server.url);
  await other.signIn(await server.createToken("web-other", "admin", "other-ws"));
  clients.set("other", other);
});
afterAll(async () => {
  await server.close();
});

function call(client: WebClient, c: RouteCase, req: { path: string; form?: Record<string, string> }) {
  return c.method === "GET" ? client.get(req.path) : client.post(req.path, req.form ?? {});
}

describe("web routes × roles (generated from routes-table.ts)", () => {
  it("the table lists every route the web app registers", () => {
    const registered = webRoutes({
      database: server.database,
      logger: createJsonLogger({ write: () => {} }),
      assets: nodeAssets(),
      // With both upstream providers configured, so their routes are registered too (nothing is fetched yet).
      oidc: {
        issuer: "https://idp.example.com",
        clientId: "reqlix",
        clientSecret: "secret",
        label: "IdP",
        allowHttp: false,
      },
      github: {
        clientId: "reqlix",
        clientSecret: "secret",
        baseUrl: "https://github.com",
        apiUrl: "https://api.github.com",
        label: "GitHub",
        allowHttp: false,
      },
    })
      .routes.filter((r) => r.method !== "ALL")
      .map((r) => `${r.method} ${r.path}`);
    const listed = [...ROUTE_CASES.map((c) => `${c.method} ${c.route}`), ...ROUTES_WITHOUT_SESSION];
    expect([...new Set(registered)].sort()).toEqual([...new Set(listed)].sort());
  });

  for (const c of ROUTE_CASES) {
    describe(`${c.method} ${c.route}`, () => {
      it("without a session: sent to sign in (GET) or refused (POST), nothing changes", async () => {
        const before = await counts();
        const reply = await call(new WebClient(server.url), c, await c.request(ctx, "none"));
        if (c.method === "GET") {
          expect(reply.status).toBe(303);
          expect(reply.location).toMatch(/^\/signin\?next=/);
        } else expect(reply.status).toBe(401);
        expect(await counts()).toBe(before);
      });

      for (const role of ROLES) {
        const allowed = c.role === "none" || roleAtLeast(role, c.role as Role);
        it(`${role}: ${allowed ? `allowed (${c.ok})` : "refused (403), nothing changes"}`, async () => {
          const client = clients.get(role) as WebClient;
          if (c.method === "POST") await client.get("/");
          const before = await counts();
          const reply = await call(client, c, await c.request(ctx, role));
          if (allowed) {
            expect(reply.status, reply.text.slice(0, 400)).toBe(c.ok);
          } else {
            expect(reply.status, reply.text.slice(0, 400)).toBe(403);
            expect(reply.text).toContain("role");
            expect(await counts()).toBe(before);
          }
        });
      }

      if (c.tenantScoped) {
        it("a member of another workspace: 404, nothing changes", async () => {
          const client = clients.get("other") as WebClient;
          if (c.method === "POST") await client.get("/");
          const before = await counts();
          const reply = await call(client, c, await c.request(ctx, "other"));
          expect(reply.status, reply.text.slice(0, 400)).toBe(404);
          for (const id of [ctx.epic, ctx.story, ctx.requirement])
            expect(reply.text).not.toContain(`Routes ${id}`);
          expect(reply.text).not.toContain("Routes secret plan");
          expect(reply.text).not.toContain("Routes confidential");
          expect(await counts()).toBe(before);
        });
      }
    });
  }
});

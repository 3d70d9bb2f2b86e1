/**
 * OAuth scopes on every face, generated from the registry (issue 12 item 7): an access token granted
 * `reqlix:read` by an admin is refused every write tool on /mcp and /api/v1/mcp (even those a viewer may
 * call) and changes nothing, while every read tool answers; a `reqlix:write` token of the same admin acts as
 * an editor (admin-only tools refused). No OAuth client mints a personal access token. The web app takes no
 * OAuth token at sign-in, and the admin API none at all.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compiledFor } from "../../../src/http/faces-common.js";
import { type Snapshot, workspaceSnapshot } from "../../helpers/db-snapshot.js";
import { type HostedServer, startHosted } from "../../helpers/hosted.js";
import { grantTokens, registerClient } from "../../helpers/oauth-http.js";
import { WebClient } from "../../web/web-client.js";
import { exerciseOrder, outcomeOf, type Seed, sampleArgs, seed } from "./exercise.js";
import { callTool } from "./http.js";

/** Tools that need the admin role (as in roles.test.ts). */
const ADMIN_ONLY = new Set(["create_requirement_type", "set_approvals_required", "list_audit_events"]);

let t: HostedServer;
let adminPat: string;
let readToken: string;
let writeToken: string;
const compiled = () => compiledFor({ database: t.database, logger: { log() {} } });

beforeAll(async () => {
  // A fixed public URL: tokens are bound to it, so in-process requests (http://localhost) accept them.
  t = await startHosted({ deps: { publicUrl: "http://reqlix.test" } });
  adminPat = await t.createToken("scoped-ada", "admin", "scopes");
  const web = new WebClient(t.url);
  await web.signIn(adminPat);
  const client = await registerClient(t.url);
  readToken = (await grantTokens(t.url, web, client, "reqlix:read")).access_token;
  writeToken = (await grantTokens(t.url, web, client, "reqlix:write")).access_token;
});
afterAll(async () => t?.close());

function withoutBookkeeping(s: Snapshot): Snapshot {
  const { audit_events: _a, tokens: _t, ...rest } = s;
  return rest;
}

async function workspaceId(): Promise<number> {
  const rs = await t.database.client.execute({
    sql: "SELECT id FROM workspaces WHERE slug = 'scopes'",
    args: [],
  });
  return Number(rs.rows[0]?.id);
}

describe.each(["jsonrpc", "mcp"] as const)("OAuth scopes on %s", (face) => {
  it("a reqlix:read token of an admin: every write refused and nothing changes, every read answers", async () => {
    const tools = exerciseOrder(compiled().toolList);
    const writes = tools.filter((tool) => tool.annotations.readOnlyHint !== true);
    expect(writes.length).toBeGreaterThan(10);
    const s: Seed = await seed(t, adminPat, `scopes-${face}-read`);
    s.token = 1;
    const wsId = await workspaceId();
    const problems: string[] = [];
    for (const tool of tools) {
      const isWrite = tool.annotations.readOnlyHint !== true;
      const before = isWrite
        ? withoutBookkeeping(await workspaceSnapshot(t.database.client, wsId))
        : undefined;
      const answer = await callTool(
        t,
        face,
        tool.name,
        sampleArgs(tool, s, `${face} ${tool.name}`),
        readToken,
      );
      const outcome = outcomeOf(face, answer);
      const expected = isWrite || ADMIN_ONLY.has(tool.name) ? "forbidden" : "ok";
      if (outcome !== expected) problems.push(`${tool.name}: expected ${expected}, got ${outcome}`);
      if (isWrite && !answer.text.includes("reqlix:read"))
        problems.push(`${tool.name}: the refusal does not name the scope`);
      if (before) {
        const after = withoutBookkeeping(await workspaceSnapshot(t.database.client, wsId));
        if (JSON.stringify(after) !== JSON.stringify(before)) problems.push(`${tool.name}: changed data`);
      }
    }
    expect(problems).toEqual([]);
  }, 180_000);

  it("a reqlix:write token of an admin acts as an editor, and mints no personal access token", async () => {
    const s: Seed = await seed(t, adminPat, `scopes-${face}-write`);
    const list = compiled().toolList;
    const byName = (name: string) => list.find((tool) => tool.name === name) as (typeof list)[number];
    for (const name of ["create_epic", "update_requirement"]) {
      const answer = await callTool(
        t,
        face,
        name,
        sampleArgs(byName(name), s, `${face} w ${name}`),
        writeToken,
      );
      expect(outcomeOf(face, answer), answer.text.slice(0, 300)).toBe("ok");
    }
    for (const name of ADMIN_ONLY) {
      const answer = await callTool(
        t,
        face,
        name,
        sampleArgs(byName(name), s, `${face} a ${name}`),
        writeToken,
      );
      expect(outcomeOf(face, answer), name).toBe("forbidden");
    }
    const mint = await callTool(t, face, "create_my_token", { name: "escape" }, writeToken);
    expect(outcomeOf(face, mint)).toBe("forbidden");
    expect(mint.text).toContain("cannot mint personal access tokens");
  });
});

describe("OAuth tokens outside the MCP faces", () => {
  it("are refused by the admin API and by the web sign-in", async () => {
    const admin = await t.app.request("http://localhost/api/v1/admin/members", {
      headers: { authorization: `Bearer ${writeToken}` },
    });
    expect(admin.status).toBe(401);
    expect(await admin.text()).toContain("accepted on /mcp and /api/v1/mcp only");
    const web = new WebClient(t.url);
    await web.get("/signin");
    const signIn = await web.post("/signin", { token: writeToken, next: "/" });
    expect(signIn.status).toBe(401);
  });
});

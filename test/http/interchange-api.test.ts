/**
 * The interchange API over real HTTP (the app on a real socket, fetch as client) and a real libSQL file:
 * export streams with a token only, roles (viewer cannot import; another workspace cannot export yours),
 * dry run writes nothing, malformed JSON → 400 with line and column, nothing written; re-import creates
 * nothing; the file name becomes the revisions' source; both are audited.
 */
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditFor } from "../../src/http/faces-common.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { workspaceSnapshot } from "../helpers/db-snapshot.js";
import { callTool } from "./faces/http.js";

let t: TestApp;
let base: string;
let server: ReturnType<typeof serve>;
let viewer: string;
let editorB: string;
let intruder: string;
let workspaceB: number;

async function ok(name: string, args: Record<string, unknown>, token?: string) {
  const a = await callTool(t, "jsonrpc", name, args, token);
  if (!a.body?.result || a.body.result.isError) throw new Error(`${name}: ${a.text}`);
  return a.body.result.structuredContent;
}

beforeAll(async () => {
  t = await createTestApp();
  server = serve({ fetch: t.app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  viewer = await t.createToken("vera", "viewer");
  editorB = await t.createToken("eddie", "editor", "bee");
  intruder = await t.createToken("mallory", "admin", "evil");
  workspaceB = Number(
    (await t.database.client.execute({ sql: "SELECT id FROM workspaces WHERE slug = 'bee'", args: [] }))
      .rows[0]?.id,
  );
  const epic = await ok("create_epic", { title: "SECRETEPIC Payments" });
  const story = await ok("create_user_story", { epic_id: epic.reference_id, title: "Card" });
  for (let i = 1; i <= 3; i++) {
    await ok("create_requirement", {
      user_story_id: story.reference_id,
      title: `Rule ${i}`,
      description: i === 1 ? '=HYPERLINK("http://x")' : `text ${i}`,
      type: "Functional",
      priority: 2,
    });
  }
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are inspected field by field in tests
const json = async (res: Response): Promise<any> => res.json();

const get = (path: string, token?: string | null) =>
  fetch(`${base}${path}`, {
    headers: token === null ? {} : { authorization: `Bearer ${token ?? t.ownerToken}` },
  });
const post = (path: string, body: string, token: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body,
  });

describe("GET /api/v1/export", () => {
  it("streams the workspace as JSON for any member, as an attachment; needs a token", async () => {
    const res = await get("/api/v1/export?format=json", viewer);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="default.json"');
    const doc = (await json(res)) as { requirements: unknown[] };
    expect(doc).toMatchObject({ format: "reqlix-export", version: 1, scope: { kind: "workspace" } });
    expect(doc.requirements).toHaveLength(3);
    expect((await get("/api/v1/export?format=json", null)).status).toBe(401);
  });

  it("an epic scope; an unknown epic is 404, an unknown format 400 naming the formats", async () => {
    const one = await json(await get("/api/v1/export?format=json&epic=ep-1"));
    expect(one.scope).toEqual({ kind: "epic", epic: "EP-001" });
    expect((await get("/api/v1/export?format=json&epic=EP-999")).status).toBe(404);
    const bad = await get("/api/v1/export?format=xlsx");
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.message).toContain("json");
  });

  it("a member of another workspace exports their own (empty) workspace, never yours", async () => {
    const theirs = await get("/api/v1/export?format=json", intruder);
    const text = await theirs.text();
    expect(text).not.toContain("SECRETEPIC");
    expect(JSON.parse(text).epics).toEqual([]);
    expect((await get("/api/v1/export?format=json&epic=EP-001", intruder)).status).toBe(404);
  });
});

describe("POST /api/v1/import", () => {
  let file: string;
  beforeAll(async () => {
    file = await (await get("/api/v1/export?format=json")).text();
  });

  it("a viewer cannot import: 403, nothing written", async () => {
    const before = await workspaceSnapshot(t.database.client, t.workspaceId);
    const res = await post("/api/v1/import?format=json&dry_run=false", file, viewer);
    expect(res.status).toBe(403);
    expect((await json(res)).error.message).toContain("needs the editor role");
    const {
      audit_events: _a,
      tokens: _t,
      ...after
    } = await workspaceSnapshot(t.database.client, t.workspaceId);
    const { audit_events: _b, tokens: _u, ...was } = before;
    expect(after).toEqual(was);
  });

  it("dry run is the default and writes nothing; apply creates; a second apply creates nothing", async () => {
    const snap = async () => {
      const {
        audit_events: _a,
        tokens: _t,
        ...rest
      } = await workspaceSnapshot(t.database.client, workspaceB);
      return rest;
    };
    const before = await snap();
    const dry = await post("/api/v1/import?format=json", file, editorB);
    expect(dry.status).toBe(200);
    const plan = await json(dry);
    expect(plan).toMatchObject({ dry_run: true, counts: { create: 5, update: 0, unchanged: 0, errors: 0 } });
    expect(await snap()).toEqual(before);

    const applied = await post("/api/v1/import?format=json&dry_run=false", file, editorB, {
      "content-disposition": 'attachment; filename="../payments export.json"',
    });
    expect(applied.status).toBe(200);
    expect(await json(applied)).toMatchObject({
      dry_run: false,
      source: "payments export.json",
      counts: { create: 5 },
    });
    const sources = await t.database.client.execute({
      sql: "SELECT DISTINCT source FROM revisions WHERE workspace_id = ?",
      args: [workspaceB],
    });
    expect(sources.rows.map((r) => r.source)).toEqual(["payments export.json"]);

    const afterFirst = await snap();
    const again = await json(await post("/api/v1/import?format=json&dry_run=false", file, editorB));
    expect(again.counts).toMatchObject({ create: 0, update: 0, errors: 0 });
    expect(await snap()).toEqual(afterFirst);
  });

  it("malformed JSON → 400 with line and column, nothing written", async () => {
    const before = await workspaceSnapshot(t.database.client, workspaceB);
    const broken = file.replace('"title":"Rule 2"', '"title":"Rule 2",,');
    const res = await post("/api/v1/import?format=json&dry_run=false", broken, editorB);
    expect(res.status).toBe(400);
    const body = await json(res);
    const line = broken.split("\n").findIndex((l) => l.includes('"Rule 2",,')) + 1;
    expect(body.error).toMatchObject({ code: "invalid_input", line });
    expect(body.error.column).toBeGreaterThan(1);
    expect(body.error.message).toMatch(/line \d+, column \d+/);
    await auditFor({ database: t.database, logger: { log() {} } }).flush();
    const after = await workspaceSnapshot(t.database.client, workspaceB);
    // Only the refusal's audit row was added.
    expect({ ...after, audit_events: undefined }).toEqual({ ...before, audit_events: undefined });
  });

  it("import and export are audited", async () => {
    await auditFor({ database: t.database, logger: { log() {} } }).flush();
    const rows = await t.database.client.execute({
      sql: "SELECT method, target, outcome, channel FROM audit_events WHERE method IN ('export', 'import', 'import.dry_run') ORDER BY id",
      args: [],
    });
    const seen = rows.rows.map((r) => `${r.method}:${r.target}:${r.outcome}:${r.channel}`);
    expect(seen).toEqual(
      expect.arrayContaining([
        "export:json:ok:http",
        "import.dry_run:json:ok:http",
        "import:json:ok:http",
        "import:json:error:http",
      ]),
    );
  });
});

describe("export_requirements (tool) and its export:// resource", () => {
  it("answers a resource link that the caller's token reads; another workspace's token finds nothing", async () => {
    const { rpc } = await import("./faces/http.js");
    const called = await callTool(t, "mcp", "export_requirements", { format: "json" }, viewer);
    const content = called.body.result.content as { type: string; uri?: string }[];
    const link = content.find((c) => c.type === "resource_link");
    expect(link?.uri).toBe("export://default/json");
    expect(called.body.result.structuredContent).toMatchObject({ http: "/api/v1/export?format=json" });
    const read = await rpc(t, "resources/read", { uri: link?.uri }, viewer);
    const doc = JSON.parse(read.body.result.contents[0].text);
    expect(doc.epics[0].title).toBe("SECRETEPIC Payments");
    // The whole-workspace link read with another workspace's token: not found, nothing of it shown.
    const stolen = await rpc(t, "resources/read", { uri: link?.uri }, intruder);
    expect(stolen.body.error.code).toBe(-32002);
    expect(stolen.text).not.toContain("SECRETEPIC");
    const csv = await callTool(
      t,
      "jsonrpc",
      "export_requirements",
      { format: "csv", epic_id: "EP-001" },
      viewer,
    );
    const csvRead = await rpc(t, "resources/read", { uri: csv.body.result.structuredContent.uri }, viewer);
    expect(csvRead.body.result.contents[0]).toMatchObject({ mimeType: "text/csv; charset=utf-8" });
    expect(csvRead.body.result.contents[0].text).toContain("Rule 1");
  });
});

/**
 * ReqIF over the interchange API, over real HTTP (the app on a real socket, fetch as client) and a real
 * libSQL file: export streams ReqIF; import into another workspace (dry run, apply, apply again = nothing
 * created); XXE, entity bombs and malformed XML get 400 with line and column and write nothing.
 */
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { workspaceSnapshot } from "../helpers/db-snapshot.js";
import { callTool } from "./faces/http.js";

let t: TestApp;
let base: string;
let server: ReturnType<typeof serve>;
let editorB: string;
let workspaceB: number;

async function ok(name: string, args: Record<string, unknown>) {
  const a = await callTool(t, "jsonrpc", name, args);
  if (!a.body?.result || a.body.result.isError) throw new Error(`${name}: ${a.text}`);
  return a.body.result.structuredContent;
}

beforeAll(async () => {
  t = await createTestApp();
  server = serve({ fetch: t.app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  editorB = await t.createToken("eddie", "editor", "bee");
  workspaceB = Number(
    (await t.database.client.execute({ sql: "SELECT id FROM workspaces WHERE slug = 'bee'", args: [] }))
      .rows[0]?.id,
  );
  const epic = await ok("create_epic", { title: "Payments" });
  const story = await ok("create_user_story", { epic_id: epic.reference_id, title: "Card" });
  const first = await ok("create_requirement", {
    user_story_id: story.reference_id,
    title: "Rule <1> & more",
    description: 'Line one\nLine "two" & <three>',
    type: "Security",
    priority: 1,
  });
  const second = await ok("create_requirement", {
    user_story_id: story.reference_id,
    title: "Rule 2",
    type: "Functional",
    priority: 3,
  });
  await ok("create_relationship", {
    source_requirement_id: first.reference_id,
    target_requirement_id: second.reference_id,
    relationship_type: "blocks",
  });
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

const get = (path: string) =>
  fetch(`${base}${path}`, { headers: { authorization: `Bearer ${t.ownerToken}` } });
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${editorB}`, "content-type": "application/xml", ...headers },
    body,
  });
interface ErrorBody {
  error: { code: string; message: string; line?: number; column?: number };
}
interface Report {
  counts: Record<string, number>;
}
const snapshotB = async () => {
  const { audit_events: _a, tokens: _t, ...rest } = await workspaceSnapshot(t.database.client, workspaceB);
  return rest;
};

describe("ReqIF over /api/v1/export and /api/v1/import", () => {
  let file: string;
  beforeAll(async () => {
    const res = await get("/api/v1/export?format=reqif");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/xml");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="default.reqif"');
    file = await res.text();
  });

  it("exports ReqIF 1.2 with the workspace's requirements, escaped", () => {
    expect(
      file.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<REQ-IF xmlns="http://www.omg.org/spec/ReqIF/20110401/reqif.xsd"',
      ),
    ).toBe(true);
    expect(file).toContain('<SPEC-OBJECT IDENTIFIER="reqlix-REQ-001"');
    expect(file).toContain('LONG-NAME="Rule &lt;1&gt; &amp; more"');
    expect(file).toContain('<xhtml:div>Line one<xhtml:br/>Line "two" &amp; &lt;three&gt;</xhtml:div>');
    expect(file).toContain("<SPEC-RELATION-TYPE-REF>reqlix-relation-type-blocks</SPEC-RELATION-TYPE-REF>");
    expect(file.trimEnd().endsWith("</REQ-IF>")).toBe(true);
  });

  it("dry run writes nothing; apply creates; applying the same file again creates nothing", async () => {
    const before = await snapshotB();
    const dry = await post("/api/v1/import?format=reqif", file);
    expect(dry.status).toBe(200);
    expect(await dry.json()).toMatchObject({ dry_run: true, counts: { create: 5, update: 0, errors: 0 } });
    expect(await snapshotB()).toEqual(before);

    const applied = await post("/api/v1/import?format=reqif&dry_run=false", file, {
      "content-disposition": 'attachment; filename="doors export.reqif"',
    });
    expect(applied.status).toBe(200);
    expect(await applied.json()).toMatchObject({
      dry_run: false,
      source: "doors export.reqif",
      counts: { create: 5 },
    });
    const rows = await t.database.client.execute({
      sql: "SELECT reference_id, title, description FROM requirements WHERE workspace_id = ? ORDER BY id",
      args: [workspaceB],
    });
    expect(rows.rows.map((r) => [r.reference_id, r.title, r.description])).toEqual([
      ["REQ-001", "Rule <1> & more", 'Line one\nLine "two" & <three>'],
      ["REQ-002", "Rule 2", ""],
    ]);

    const afterFirst = await snapshotB();
    const again = (await (await post("/api/v1/import?format=reqif&dry_run=false", file)).json()) as Report;
    expect(again.counts).toMatchObject({ create: 0, update: 0, errors: 0 });
    expect(await snapshotB()).toEqual(afterFirst);
  });

  it("an external entity (XXE) → 400 naming the DOCTYPE with line and column, nothing written", async () => {
    const before = await snapshotB();
    const xxe = file
      .replace(
        '<?xml version="1.0" encoding="UTF-8"?>\n',
        '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE REQ-IF [ <!ENTITY x SYSTEM "file:///etc/passwd"> ]>\n',
      )
      .replace("Rule 2", "&x;");
    const res = await post("/api/v1/import?format=reqif&dry_run=false", xxe);
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error).toMatchObject({ code: "invalid_input", line: 2 });
    expect(body.error.message).toContain("a DOCTYPE declaration is not accepted");
    expect(JSON.stringify(body)).not.toContain("root:");
    expect(await snapshotB()).toEqual(before);
  });

  it("an entity expansion bomb → 400 at once, nothing written", async () => {
    const before = await snapshotB();
    const entities = Array.from({ length: 10 }, (_, i) =>
      i === 0 ? '<!ENTITY a0 "ha">' : `<!ENTITY a${i} "${`&a${i - 1};`.repeat(10)}">`,
    ).join("");
    const bomb = `<?xml version="1.0"?><!DOCTYPE REQ-IF [${entities}]><REQ-IF><THE-HEADER><REQ-IF-HEADER IDENTIFIER="h"><TITLE>&a9;</TITLE></REQ-IF-HEADER></THE-HEADER></REQ-IF>`;
    const res = await post("/api/v1/import?format=reqif&dry_run=false", bomb);
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error).toMatchObject({ code: "invalid_input", line: 1 });
    expect(body.error.message).toContain("entity expansion bombs");
    expect(await snapshotB()).toEqual(before);
  });

  it("malformed XML → 400 with the line and column of the problem, nothing written", async () => {
    const before = await snapshotB();
    const broken = file.replace("</SPEC-OBJECTS>", "</SPEC-OBJECT>");
    // The replaced closing tag is the one right before <SPEC-RELATIONS> (every object ends in </SPEC-OBJECT>).
    const line = broken.slice(0, broken.indexOf("</SPEC-OBJECT>\n<SPEC-RELATIONS>")).split("\n").length;
    const res = await post("/api/v1/import?format=reqif&dry_run=false", broken);
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.error).toMatchObject({ code: "invalid_input", line, column: 14 });
    expect(body.error.message).toContain(`is not valid XML at line ${line}, column 14: unexpected close tag`);
    expect(await snapshotB()).toEqual(before);
  });

  it("epic_depth sets the hierarchy rule's epic depth; a bad one is 400", async () => {
    const sample = readFileSync(
      resolve(import.meta.dirname, "../fixtures/reqif/strictdoc-two-documents.reqif"),
      "utf8",
    );
    const plan = async (query: string) => {
      const res = await post(`/api/v1/import?format=reqif${query}`, sample);
      expect(res.status).toBe(200);
      return ((await res.json()) as Report).counts;
    };
    // auto (here 0): 2 specifications → 2 epics, 2 sections + 2 "items" stories, 4 requirements.
    expect(await plan("")).toMatchObject({ create: 10, errors: 0 });
    expect(await plan("&epic_depth=auto")).toMatchObject({ create: 10, errors: 0 });
    // 1: the 4 top-level objects are epics, 2 stories made for the sections' requirements.
    expect(await plan("&epic_depth=1")).toMatchObject({ create: 8, errors: 0 });
    const bad = await post("/api/v1/import?format=reqif&epic_depth=deep", sample);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ErrorBody).error.message).toContain(
      'epic_depth must be "auto" or a depth from 0 to 9',
    );
  });
});

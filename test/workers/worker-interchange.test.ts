/**
 * Interchange on the real Worker (src/worker.ts under `wrangler dev`, workerd, over the local libSQL
 * endpoint): every format exports, and ReqIF — parsed by saxes in workerd — imports a public sample file
 * and the Worker's own export (dry run by default, apply, apply again = nothing created), and refuses a
 * DOCTYPE (XXE) writing nothing, as on Node (test/http/interchange-reqif-api.test.ts).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartedWorker, startWorker } from "../helpers/workers.js";

let worker: StartedWorker;

async function tool(name: string, args: Record<string, unknown>) {
  const res = await fetch(`${worker.url}/api/v1/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${worker.token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  const body = (await res.json()) as { result?: { structuredContent?: Record<string, unknown> } };
  if (!body.result?.structuredContent) throw new Error(`${name}: ${JSON.stringify(body)}`);
  return body.result.structuredContent;
}

const get = (path: string) =>
  fetch(`${worker.url}${path}`, { headers: { authorization: `Bearer ${worker.token}` } });
const post = (path: string, body: string) =>
  fetch(`${worker.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${worker.token}`, "content-type": "application/xml" },
    body,
  });
interface Report {
  dry_run: boolean;
  counts: Record<string, number>;
}

beforeAll(async () => {
  worker = await startWorker();
  const epic = await tool("create_epic", { title: "Payments" });
  const story = await tool("create_user_story", { epic_id: epic.reference_id, title: "Card" });
  await tool("create_requirement", {
    user_story_id: story.reference_id,
    title: "Rule <1> & more",
    description: "Checked on the Worker",
    type: "Security",
    priority: 1,
  });
}, 240_000);

afterAll(async () => {
  await worker?.close();
}, 60_000);

describe("interchange on the Worker", () => {
  it("exports JSON, CSV, Markdown and ReqIF", async () => {
    const expected = {
      json: "application/json",
      csv: "text/csv",
      markdown: "application/gzip",
      reqif: "application/xml",
    };
    for (const [format, type] of Object.entries(expected)) {
      const res = await get(`/api/v1/export?format=${format}`);
      expect(res.status, format).toBe(200);
      expect(res.headers.get("content-type") ?? "", format).toContain(type);
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(bytes.length, format).toBeGreaterThan(100);
      if (format !== "markdown") expect(new TextDecoder().decode(bytes), format).toContain("REQ-001");
    }
  });

  it("imports a public ReqIF sample: dry run by default, apply, apply again creates nothing", async () => {
    const sample = readFileSync(
      resolve(import.meta.dirname, "../fixtures/reqif/strictdoc-minimal.reqif"),
      "utf8",
    );
    const dry = (await (await post("/api/v1/import?format=reqif", sample)).json()) as Report;
    expect(dry.dry_run).toBe(true);
    expect(dry.counts.create).toBeGreaterThan(0);
    expect(dry.counts.errors).toBe(0);
    const applied = await post("/api/v1/import?format=reqif&dry_run=false", sample);
    expect(applied.status).toBe(200);
    expect(((await applied.json()) as Report).counts.create).toBe(dry.counts.create);
    const again = (await (await post("/api/v1/import?format=reqif&dry_run=false", sample)).json()) as Report;
    expect(again.counts).toMatchObject({ create: 0, update: 0, errors: 0 });
  });

  it("re-imports its own ReqIF export as a no-op", async () => {
    const file = await (await get("/api/v1/export?format=reqif")).text();
    const report = (await (await post("/api/v1/import?format=reqif", file)).json()) as Report;
    expect(report.counts).toMatchObject({ create: 0, update: 0, errors: 0 });
  });

  it("refuses a DOCTYPE (XXE) with 400 naming the line, and writes nothing", async () => {
    const before = (await (await get("/api/v1/export?format=json")).text()).length;
    const xxe =
      '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<REQ-IF>&x;</REQ-IF>\n';
    const res = await post("/api/v1/import?format=reqif&dry_run=false", xxe);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; line?: number } };
    expect(body.error.message).toMatch(/DOCTYPE/);
    expect(body.error.line).toBe(2);
    expect((await (await get("/api/v1/export?format=json")).text()).length).toBe(before);
  });
});

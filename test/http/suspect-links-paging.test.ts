/**
 * list_suspect_links pages (limit + cursor → next_cursor) over a real server, real libSQL and the real SDK
 * client: walking the pages yields each list (suspect relationships by relationship id, then suspect
 * citations by repository, file, line, reference id in binary order, push order on a full tie) exactly once
 * and in order, with a page size smaller than either list and pages that hold the end of one list and the
 * start of the other; a malformed cursor, one of other filters, another list or another workspace is
 * refused with -32602; another workspace's pages never show these links.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HostedServer, startHosted } from "../helpers/hosted.js";
import { rpcHttp, toolHttp } from "../helpers/rpc-http.js";
import { type CitationIn, pushTraces, sha, snapshotBody } from "../helpers/traces.js";

type Relationship = {
  source_requirement_id: string;
  target_requirement_id: string;
  relationship_type: string;
};
type Citation = { reference_id: string; repository: string; file: string; line: number; kind: string };
type Suspects = { relationships: Relationship[]; trace_citations: Citation[]; next_cursor?: string };

let server: HostedServer;
let owner: Client;
let otherToken: string;
let other: Client;
const clients: Client[] = [];

async function connect(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "paging-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function page(client: Client, args: Record<string, unknown>): Promise<Suspects> {
  const result = (await client.callTool({ name: "list_suspect_links", arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`list_suspect_links failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Suspects;
}

/** Every page from the first, checking each holds `limit` links except the last. */
async function walk(client: Client, limit: number, filter: Record<string, unknown> = {}) {
  const relationships: Relationship[] = [];
  const citations: Citation[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const p = await page(client, { ...filter, limit, ...(cursor ? { cursor } : {}) });
    const size = p.relationships.length + p.trace_citations.length;
    if (p.next_cursor) expect(size).toBe(limit);
    else expect(size).toBeLessThanOrEqual(limit);
    // One list finished before the other begins.
    if (citations.length > 0) expect(p.relationships).toEqual([]);
    relationships.push(...p.relationships);
    citations.push(...p.trace_citations);
    cursor = p.next_cursor;
    pages++;
    expect(pages).toBeLessThan(200);
  } while (cursor);
  return { relationships, citations, pages };
}

async function tool(name: string, args: Record<string, unknown>, token = server.ownerToken) {
  return toolHttp(server.url, token, name, args);
}

/** Requirements REQ-001…REQ-008: 1–5 in EP-001 (US-001), 6–8 in EP-002 (US-002). */
async function tree(token: string) {
  for (const title of ["Payments", "Reports"]) {
    const epic = (await tool("create_epic", { title }, token)) as { reference_id: string };
    await tool("create_user_story", { epic_id: epic.reference_id, title: `${title} story` }, token);
  }
  for (let i = 1; i <= 8; i++) {
    const story = i <= 5 ? "US-001" : "US-002";
    await tool(
      "create_requirement",
      { user_story_id: story, title: `R${i}`, type: "Functional", priority: 2 },
      token,
    );
  }
  await tool("create_acceptance_criteria", { user_story_id: "US-001", description: "Given, then." }, token);
}

const req = (n: number) => `REQ-${String(n).padStart(3, "0")}`;

/** Links in creation order: a chain 1→2→…→8 (depends_on), then 1→n (relates_to) for n = 3…8. */
const LINKS: [number, number, string][] = [
  ...[1, 2, 3, 4, 5, 6, 7].map((n): [number, number, string] => [n, n + 1, "depends_on"]),
  ...[3, 4, 5, 6, 7, 8].map((n): [number, number, string] => [1, n, "relates_to"]),
];
/** Requirements changed after linking: every link touching one is suspect. */
const CHANGED = [2, 5, 8];

/**
 * Two repositories whose names sort differently in binary and locale order, files likewise, and ties on
 * repository, file and line: several citations on one line, the same id twice on one line.
 */
const CITATIONS: Record<string, CitationIn[]> = {
  "acme/alpha": [
    { id: "REQ-002", revision: 1, file: "src/pay.ts", line: 12, column: 40 },
    { id: "REQ-002", revision: 1, file: "src/pay.ts", line: 12, column: 5, kind: "test" },
    { id: "REQ-001", revision: 1, file: "src/pay.ts", line: 12 }, // REQ-001 does not change: never suspect
    { id: "AC-001", revision: 1, file: "src/pay.ts", line: 12, column: 60 },
    { id: "REQ-005", revision: 1, file: "src/pay.ts", line: 3 },
    { id: "REQ-008", revision: 1, file: "src/Pay.ts", line: 99 },
    { id: "REQ-005", revision: null, file: "src/a.ts", line: 1 }, // not pinned: never suspect
    { id: "EP-001", revision: 1, file: "docs/pay.md", line: 1, kind: "doc" },
    { id: "US-002", revision: 1, file: "docs/pay.md", line: 1, column: 9, kind: "doc" },
    { id: "REQ-008", revision: 1, file: "src/pay.ts", line: 12, column: 70 },
  ],
  "acme/Zeta": [
    { id: "REQ-005", revision: 1, file: "b.ts", line: 2 },
    { id: "REQ-002", revision: 1, file: "b.ts", line: 2, column: 30 },
    { id: "REQ-002", revision: 1, file: "a.ts", line: 10 },
    { id: "REQ-002", revision: 1, file: "a.ts", line: 9 },
    { id: "REQ-008", revision: 1, file: "a.ts", line: 10, column: 20 },
    { id: "REQ-002", revision: 1, file: "a.ts", line: 10, column: 40, kind: "test" },
  ],
};
const CHANGED_OTHERS = ["EP-001", "US-002", "AC-001"];

const binary = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The suspect citations in the documented order, computed from what was pushed. */
function expectedCitations(inEpic?: (id: string) => boolean): [string, string, number, string][] {
  const changed = new Set([...CHANGED.map(req), ...CHANGED_OTHERS]);
  const rows = Object.entries(CITATIONS).flatMap(([repository, list]) =>
    list.map((c, seq) => ({ repository, seq, ...c })),
  );
  return rows
    .filter((c) => c.revision === 1 && changed.has(c.id) && (inEpic?.(c.id) ?? true))
    .sort(
      (a, b) =>
        binary(a.repository, b.repository) ||
        binary(a.file ?? "", b.file ?? "") ||
        (a.line ?? 0) - (b.line ?? 0) ||
        binary(a.id, b.id) ||
        a.seq - b.seq,
    )
    .map((c) => [c.repository, c.file ?? "", c.line ?? 0, c.id]);
}

function expectedRelationships(inEpic?: (n: number) => boolean): string[] {
  return LINKS.filter(([s, t]) => CHANGED.includes(s) || CHANGED.includes(t))
    .filter(([s, t]) => inEpic === undefined || inEpic(s) || inEpic(t))
    .map(([s, t, type]) => `${req(s)} ${type} ${req(t)}`);
}

const relKeys = (list: Relationship[]) =>
  list.map((r) => `${r.source_requirement_id} ${r.relationship_type} ${r.target_requirement_id}`);
const citeKeys = (list: Citation[]) =>
  list.map((c): [string, string, number, string] => [c.repository, c.file, c.line, c.reference_id]);

beforeAll(async () => {
  server = await startHosted();
  otherToken = await server.createToken("olga", "admin", "elsewhere");
  for (const token of [server.ownerToken, otherToken]) {
    await tree(token);
    for (const [s, t, type] of LINKS) {
      await tool(
        "create_relationship",
        { source_requirement_id: req(s), target_requirement_id: req(t), relationship_type: type },
        token,
      );
    }
  }
  for (const [repository, citations] of Object.entries(CITATIONS)) {
    const pushed = await pushTraces(
      server,
      snapshotBody({ repository, commit: sha(repository.length), citations }),
    );
    expect(pushed.status, pushed.text).toBeLessThan(300);
  }
  for (const n of CHANGED)
    await tool("update_requirement", { requirement_id: req(n), description: "changed" });
  await tool("update_epic", { epic_id: "EP-001", description: "changed" });
  await tool("update_user_story", { user_story_id: "US-002", description: "changed" });
  await tool("update_acceptance_criteria", { acceptance_criteria_id: "AC-001", description: "changed" });
  // In the other workspace every link is suspect: none of it may show on our pages, nor ours on its.
  for (let n = 1; n <= 8; n++) {
    await tool("update_requirement", { requirement_id: req(n), description: "elsewhere" }, otherToken);
  }
  owner = await connect(server.ownerToken);
  other = await connect(otherToken);
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await server?.close();
});

describe("list_suspect_links pages", () => {
  it("one page of 100 holds both whole lists in the documented order, with no next_cursor", async () => {
    const all = await page(owner, { limit: 100 });
    expect(all.next_cursor).toBeUndefined();
    expect(relKeys(all.relationships)).toEqual(expectedRelationships());
    expect(citeKeys(all.trace_citations)).toEqual(expectedCitations());
    expect(all.relationships.length).toBeGreaterThan(5);
    expect(all.trace_citations.length).toBeGreaterThan(10);
  });

  it("walking pages smaller than either list yields each link exactly once, in order", async () => {
    const all = await page(owner, { limit: 100 });
    for (const limit of [1, 2, 3, 4, 7]) {
      const walked = await walk(owner, limit);
      expect(walked.relationships, `limit ${limit}`).toEqual(all.relationships);
      expect(walked.citations, `limit ${limit}`).toEqual(all.trace_citations);
      expect(walked.pages).toBe(Math.ceil((all.relationships.length + all.trace_citations.length) / limit));
    }
  });

  it("the default page is 20 links", async () => {
    const first = await page(owner, {});
    expect(first.relationships.length + first.trace_citations.length).toBe(20);
    expect(first.next_cursor).toBeDefined();
  });

  it("pages of one epic walk that epic's links only", async () => {
    const epicOne = (n: number) => n <= 5;
    const idInEpicOne = (id: string) =>
      ["EP-001", "US-001", "AC-001"].includes(id) || (id.startsWith("REQ-") && epicOne(Number(id.slice(4))));
    const all = await page(owner, { epic_id: "EP-001", limit: 100 });
    expect(relKeys(all.relationships)).toEqual(expectedRelationships(epicOne));
    expect(citeKeys(all.trace_citations)).toEqual(expectedCitations(idInEpicOne));
    const walked = await walk(owner, 2, { epic_id: "EP-001" });
    expect(walked.relationships).toEqual(all.relationships);
    expect(walked.citations).toEqual(all.trace_citations);
  });

  it("refuses a malformed cursor, one of other filters, of another list or of another workspace (-32602)", async () => {
    const first = await page(owner, { limit: 2 });
    const inEpic = await page(owner, { epic_id: "EP-001", limit: 2 });
    const deepInCitations = (await page(owner, { limit: 15 })).next_cursor as string;
    const requirements = (await tool("list_requirements", { limit: 1 })) as { next_cursor: string };
    const refused = async (args: Record<string, unknown>, token = server.ownerToken) => {
      const reply = await rpcHttp(server.url, token, "tools/call", {
        name: "list_suspect_links",
        arguments: args,
      });
      expect(reply.body.error?.code, reply.text).toBe(-32602);
      expect(reply.body.error.message).toContain("cursor does not belong to this list or these filters");
      expect(reply.body.error.message).toContain("omit cursor to start over");
    };
    await refused({ cursor: "garbage" });
    await refused({ cursor: "eyJ0IjoxfQ" }); // base64url JSON of the wrong shape
    await refused({ cursor: inEpic.next_cursor });
    await refused({ epic_id: "EP-002", cursor: inEpic.next_cursor });
    await refused({ epic_id: "EP-001", cursor: first.next_cursor });
    await refused({ cursor: requirements.next_cursor });
    await refused({ cursor: first.next_cursor }, otherToken);
    await refused({ cursor: deepInCitations }, otherToken);
    // The SDK client reads the same words.
    const result = (await owner.callTool({
      name: "list_suspect_links",
      arguments: { epic_id: "EP-002", cursor: inEpic.next_cursor },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("cursor does not belong");
  });

  it("another workspace walks its own links only", async () => {
    const theirs = await walk(other, 3);
    expect(relKeys(theirs.relationships)).toEqual(LINKS.map(([s, t, type]) => `${req(s)} ${type} ${req(t)}`));
    expect(theirs.citations).toEqual([]);
    const ours = await walk(owner, 3);
    expect(relKeys(ours.relationships)).toEqual(expectedRelationships());
  });
});

/**
 * Hostile input against both MCP faces of the real hosted app over real HTTP (Node, temp libSQL file):
 * fast-check generates bodies from the live tools/resources/prompts lists (test/fuzz/hostile.ts) and each
 * body goes to `/api/v1/mcp` and to `/mcp` with the token of an admin of workspace "attack".
 *
 * Every answer must be a 4xx, a JSON-RPC error or a valid result: never a 5xx, never a hang, never an
 * internal error, never a stack trace or SQL in the text. Afterwards the server is healthy, PRAGMA
 * integrity_check is ok and no row of workspace "victim" (nor any shared table) changed.
 *
 * `npm test`: fixed seed, REQLIX_FUZZ_RUNS bodies (default 2,600 → 5,200 requests).
 * `npm run test:fuzz`: REQLIX_FUZZ=long, 25,000 bodies and a fresh seed (printed; replay with REQLIX_FUZZ_SEED).
 */
import { request } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  coveredTables,
  integrityCheck,
  type Snapshot,
  settleAudit,
  workspaceSnapshot,
} from "../helpers/db-snapshot.js";
import { type HostedServer, MCP_ACCEPT, parseMcpBody, startHosted } from "../helpers/hosted.js";
import { rpcHttp, type SeededHierarchy, seedHierarchy, toolHttp } from "../helpers/rpc-http.js";
import { type HostileBody, hostileBody, type Surface } from "./hostile.js";

const LONG = process.env.REQLIX_FUZZ === "long";
const RUNS = Number(process.env.REQLIX_FUZZ_RUNS ?? (LONG ? 25_000 : 2_600));
const SEED = Number(process.env.REQLIX_FUZZ_SEED ?? (LONG ? Date.now() % 2_147_483_647 : 20_261_121));
const PER_REQUEST_TIMEOUT_MS = 15_000;
const MAX_BODY = 1024 * 1024;

/** Text that must never reach a client: stack frames, SQL engine errors, source paths. */
const LEAK =
  /\n\s+at [^\n]+\(|SQLITE_|sqlite3|no such (table|column)|syntax error|node_modules|\/src\/[a-z-]+\/[a-z-]+\.ts|libsql/i;

let hosted: HostedServer;
let attacker: string;
let victim: string;
let victimWorkspaceId: number;
let victimData: SeededHierarchy;
let surface: Surface;
let victimToolCount: number;
let before: Snapshot;
let errorLogsBefore = 0;
const counts = {
  bodies: 0,
  requests: 0,
  /** -32602 answers on /mcp: malformed params did reach the schema check. */
  mcpInvalidParams: 0,
  byStatus: new Map<number, number>(),
  byKind: new Map<string, number>(),
};

function isJsonRpcResponse(
  m: unknown,
): m is { jsonrpc: string; id: unknown; result?: unknown; error?: { code: unknown; message: unknown } } {
  return typeof m === "object" && m !== null && (m as { jsonrpc?: unknown }).jsonrpc === "2.0";
}

/** What is wrong with one answer, or undefined when it is acceptable. */
function judge(
  face: string,
  body: HostileBody,
  status: number,
  contentType: string | null,
  text: string,
): string | undefined {
  if (status >= 500) return `HTTP ${status}`;
  if (status === 413 && body.bytes.length <= MAX_BODY) return "413 for a body under the limit";
  if (body.bytes.length > MAX_BODY && status !== 413)
    return `HTTP ${status} for a body over 1 MiB (expected 413)`;
  if (LEAK.test(text)) return `leaks internals: ${text.slice(0, 300)}`;
  if (status >= 400) return undefined;
  if (status === 202) return text.trim() === "" ? undefined : "202 with a body";
  if (status !== 200) return `unexpected HTTP ${status}`;
  let messages: unknown[];
  try {
    messages = parseMcpBody(contentType, text);
  } catch {
    return `200 whose body is not JSON: ${text.slice(0, 200)}`;
  }
  if (messages.length === 0) return "200 with an empty body";
  for (const m of messages) {
    if (!isJsonRpcResponse(m)) return `not a JSON-RPC message: ${JSON.stringify(m).slice(0, 200)}`;
    if ("method" in m) continue; // a notification on the SSE stream (progress)
    const hasResult = "result" in m;
    const hasError = "error" in m && m.error !== undefined;
    if (hasResult === hasError)
      return `response must have exactly one of result and error: ${JSON.stringify(m).slice(0, 200)}`;
    if (hasError) {
      const code = m.error?.code;
      if (!Number.isInteger(code) || typeof m.error?.message !== "string")
        return `malformed error: ${JSON.stringify(m.error)}`;
      // Params of the wrong shape are -32602 naming the field on both faces (src/protocol/mcp-server.ts
      // applies the SDK's request schemas itself); no -32603 is acceptable any more.
      if (code === -32602 && face === "/mcp") counts.mcpInvalidParams++;
      if (code === -32603) {
        return `internal error on ${face}: ${JSON.stringify(m.error).slice(0, 300)}`;
      }
    } else {
      const result = m.result as { isError?: boolean; content?: { text?: string }[] } | null;
      if (result?.isError && result.content?.some((c) => /Internal error/i.test(c.text ?? ""))) {
        return `internal error in a tool result on ${face}: ${result.content?.[0]?.text?.slice(0, 300)}`;
      }
    }
  }
  return undefined;
}

async function send(face: "/api/v1/mcp" | "/mcp", body: HostileBody): Promise<string | undefined> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${attacker}`,
    "content-type": "application/json",
  };
  if (face === "/mcp") {
    headers.accept = MCP_ACCEPT;
    headers["mcp-protocol-version"] = "2025-06-18";
  }
  if (body.bytes.length > MAX_BODY) return sendAlone(face, headers, body);
  let res: Response;
  try {
    res = await fetch(`${hosted.url}${face}`, {
      method: "POST",
      headers,
      body: body.bytes as Uint8Array<ArrayBuffer>,
      signal: AbortSignal.timeout(PER_REQUEST_TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return `no answer within ${PER_REQUEST_TIMEOUT_MS} ms or connection failed: ${(error as Error).message} (${cause?.code ?? ""} ${cause?.message ?? ""})`;
  }
  const text = await res.text();
  counts.requests++;
  counts.byStatus.set(res.status, (counts.byStatus.get(res.status) ?? 0) + 1);
  return judge(face, body, res.status, res.headers.get("content-type"), text);
}

/**
 * Bodies over the limit go on a connection of their own: the server answers 413 before reading them and
 * then drops the socket although it said `keep-alive` (a known edge defect, pinned by
 * test/security/http-edges.test.ts), which would fail the next, unrelated request of a pooled client.
 */
function sendAlone(
  face: string,
  headers: Record<string, string>,
  body: HostileBody,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = request(
      `${hosted.url}${face}`,
      { method: "POST", headers: { ...headers, "content-length": String(body.bytes.length) }, agent: false },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => {
          counts.requests++;
          counts.byStatus.set(res.statusCode ?? 0, (counts.byStatus.get(res.statusCode ?? 0) ?? 0) + 1);
          resolve(judge(face, body, res.statusCode ?? 0, res.headers["content-type"] ?? null, text));
        });
      },
    );
    req.setTimeout(PER_REQUEST_TIMEOUT_MS, () => req.destroy(new Error("timeout")));
    // The server may close before the whole body is sent; only the answer matters.
    req.on("error", (error) => resolve(`no answer: ${error.message}`));
    req.end(body.bytes);
  });
}

beforeAll(async () => {
  hosted = await startHosted();
  attacker = await hosted.createToken("mallory", "admin", "attack");
  victim = await hosted.createToken("victor", "editor", "victim");
  // The victim has more of everything than the attacker, so EP-002… exist only in the victim's workspace.
  await seedHierarchy(hosted.url, attacker, 1, "attack");
  victimData = await seedHierarchy(hosted.url, victim, 4, "victim");
  const ws = await hosted.database.client.execute({
    sql: "SELECT id FROM workspaces WHERE slug = ?",
    args: ["victim"],
  });
  victimWorkspaceId = Number(ws.rows[0]?.id);

  const tools = (await rpcHttp(hosted.url, attacker, "tools/list")).body.result.tools;
  // The victim (an editor) is listed fewer tools than the admin attacker: the admin-only ones are hidden.
  victimToolCount = (await rpcHttp(hosted.url, victim, "tools/list")).body.result.tools.length;
  const templates =
    (await rpcHttp(hosted.url, attacker, "resources/templates/list")).body?.result?.resourceTemplates ?? [];
  const prompts = (await rpcHttp(hosted.url, attacker, "prompts/list")).body?.result?.prompts ?? [];
  const own = new Set(["EP-001", "US-001", "REQ-001", "REQ-002", "AC-001"]);
  surface = {
    tools,
    resourceTemplates: templates.map((t: { uriTemplate: string }) => t.uriTemplate),
    prompts,
    foreignIds: [
      ...victimData.epics,
      ...victimData.stories,
      ...victimData.requirements,
      ...victimData.criteria,
    ].filter((id) => !own.has(id)),
  };
  await settleAudit(hosted.database.client);
  before = await workspaceSnapshot(hosted.database.client, victimWorkspaceId, "all");
  errorLogsBefore = hosted.logs.filter((l) => l.includes('"level":"error"')).length;
}, 120_000);

afterAll(async () => {
  await hosted?.close();
});

describe(`hostile bodies on /api/v1/mcp and /mcp (seed ${SEED}, ${RUNS} bodies × 2 faces)`, () => {
  it("has a surface to attack and a victim to protect", () => {
    expect(surface.tools.length).toBeGreaterThan(10);
    expect(surface.foreignIds.length).toBeGreaterThan(10);
    expect(coveredTables(before)).toEqual(
      expect.arrayContaining(["epics", "requirements", "user_stories", "relationships"]),
    );
    expect(before.epics?.length).toBe(4);
  });

  it(
    "answers every body with a 4xx, a JSON-RPC error or a valid result: no 5xx, no hang, no leak",
    async () => {
      const started = Date.now();
      await fc.assert(
        fc.asyncProperty(hostileBody(surface), async (body) => {
          counts.bodies++;
          counts.byKind.set(
            body.kind.split(" ")[0] as string,
            (counts.byKind.get(body.kind.split(" ")[0] as string) ?? 0) + 1,
          );
          const [rpc, mcp] = await Promise.all([send("/api/v1/mcp", body), send("/mcp", body)]);
          const problem = rpc ? `/api/v1/mcp: ${rpc}` : mcp ? `/mcp: ${mcp}` : undefined;
          if (problem) {
            const preview = new TextDecoder().decode(body.bytes.subarray(0, 400));
            throw new Error(`${body.kind} (${body.bytes.length} bytes) → ${problem}\nbody: ${preview}`);
          }
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      const seconds = (Date.now() - started) / 1000;
      console.log(
        `fuzz: seed ${SEED}, ${counts.bodies} bodies, ${counts.requests} requests in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries(counts.byStatus))}; -32602 on /mcp: ${counts.mcpInvalidParams}; kinds ${JSON.stringify(Object.fromEntries(counts.byKind))}`,
      );
      expect(counts.requests).toBeGreaterThanOrEqual(Math.min(5_000, RUNS * 2));
      // Wrong-typed params were generated and answered as invalid params, not as internal errors.
      expect(counts.mcpInvalidParams).toBeGreaterThan(0);
    },
    Math.max(120_000, RUNS * 200),
  );

  it("keeps the database whole: PRAGMA integrity_check is ok", async () => {
    expect(await integrityCheck(hosted.database.client)).toBe("ok");
  });

  it("changed no row of the other workspace and no shared row", async () => {
    await settleAudit(hosted.database.client);
    const after = await workspaceSnapshot(hosted.database.client, victimWorkspaceId, "all");
    expect(after).toEqual(before);
  });

  // Last: the victim's own calls below write audit rows in its workspace.
  it("stays healthy: /healthz, a valid call on each face, no internal error logged", async () => {
    const health = await fetch(`${hosted.url}/healthz`);
    expect(health.status).toBe(200);
    const viaRpc = await toolHttp(hosted.url, victim, "get_epic", { epic_id: victimData.epics[3] });
    expect(viaRpc).toMatchObject({ reference_id: victimData.epics[3], title: "victim epic 4" });
    const res = await fetch(`${hosted.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${victim}`, "content-type": "application/json", accept: MCP_ACCEPT },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(200);
    const [message] = parseMcpBody(res.headers.get("content-type"), await res.text()) as {
      result: { tools: unknown[] };
    }[];
    expect(message?.result.tools.length).toBe(victimToolCount);
    const errors = hosted.logs.filter((l) => l.includes('"level":"error"')).slice(errorLogsBefore);
    expect(errors, errors.slice(0, 3).join("\n")).toEqual([]);
  });
});

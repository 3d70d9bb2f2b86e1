/**
 * A real local HTTP server speaking the hosted half's contract for the trace client: `resolve_references`
 * over JSON-RPC and `POST /api/v1/traces`, validating every request strictly (the test fails on any
 * deviation from the contract, via `problems`).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ContractServer {
  url: string;
  token: string;
  /** Bodies of accepted pushes. */
  pushes: unknown[];
  /** Contract violations seen (must stay empty). */
  problems: string[];
  resolveCalls: string[][];
  /** Answer for the next push instead of accepting it. */
  nextPush?: { status: number; body: unknown };
  close(): Promise<void>;
}

const HOSTED = /^(EP|US|REQ|AC)-\d+$/;
const CITATION_KEYS = ["column", "file", "id", "kind", "line", "revision", "snippet", "test_name"];

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

/** Returns the first contract problem of a push body, as the hosted server would name the field. */
export function pushProblem(body: unknown): string | undefined {
  const b = body as Record<string, unknown>;
  if (typeof b !== "object" || b === null) return "body";
  const keys = Object.keys(b).sort().join(",");
  if (keys !== "branch,citations,commit,commits,repository,scanned_at,schema") return `keys ${keys}`;
  if (b.schema !== 1) return "schema";
  if (typeof b.repository !== "string" || b.repository.length < 1 || b.repository.length > 200)
    return "repository";
  if (typeof b.commit !== "string" || !/^[0-9a-f]{7,64}$/i.test(b.commit)) return "commit";
  if (b.branch !== null && typeof b.branch !== "string") return "branch";
  if (
    typeof b.scanned_at !== "string" ||
    Number.isNaN(Date.parse(b.scanned_at)) ||
    !/^\d{4}-\d\d-\d\dT/.test(b.scanned_at)
  )
    return "scanned_at";
  if (!Array.isArray(b.citations)) return "citations";
  for (const [i, c] of (b.citations as Record<string, unknown>[]).entries()) {
    if (Object.keys(c).sort().join(",") !== CITATION_KEYS.join(",")) return `citations.${i}`;
    if (typeof c.id !== "string" || !HOSTED.test(c.id)) return `citations.${i}.id`;
    if (typeof c.id === "string" && !Number.isSafeInteger(Number(c.id.split("-")[1])))
      return `citations.${i}.id`;
    if (c.revision !== null && !(Number.isSafeInteger(c.revision) && (c.revision as number) >= 1))
      return `citations.${i}.revision`;
    if (typeof c.file !== "string" || c.file.length === 0 || c.file.length > 1000)
      return `citations.${i}.file`;
    if (!Number.isInteger(c.line) || (c.line as number) < 1) return `citations.${i}.line`;
    if (!Number.isInteger(c.column) || (c.column as number) < 1) return `citations.${i}.column`;
    if (!["impl", "test", "doc"].includes(c.kind as string)) return `citations.${i}.kind`;
    if (
      c.test_name !== null &&
      !(typeof c.test_name === "string" && c.test_name.length >= 1 && c.test_name.length <= 500)
    )
      return `citations.${i}.test_name`;
    if (typeof c.snippet !== "string" || c.snippet.length > 200) return `citations.${i}.snippet`;
  }
  if (!Array.isArray(b.commits)) return "commits";
  for (const [i, c] of (b.commits as Record<string, unknown>[]).entries()) {
    if (Object.keys(c).sort().join(",") !== "ids,sha,subject") return `commits.${i}`;
    if (typeof c.sha !== "string" || !/^[0-9a-f]+$/.test(c.sha)) return `commits.${i}.sha`;
    if (
      !Array.isArray(c.ids) ||
      c.ids.length === 0 ||
      !c.ids.every((id) => typeof id === "string" && HOSTED.test(id))
    )
      return `commits.${i}.ids`;
    if (typeof c.subject !== "string" || c.subject.length > 200) return `commits.${i}.subject`;
  }
  return undefined;
}

export async function startContractServer(
  known: Record<string, { kind: string; title: string; status: string; revision: number }>,
  options: { token?: string; viewerToken?: string } = {},
): Promise<ContractServer> {
  const token = options.token ?? "rqx_editor_token_for_tests_0123456789";
  const state: ContractServer = {
    url: "",
    token,
    pushes: [],
    problems: [],
    resolveCalls: [],
    close: () => new Promise((r) => server.close(() => r())),
  };
  const server: Server = createServer(async (req, res) => {
    const body = await read(req);
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    const auth = req.headers.authorization;
    if (req.method !== "POST") return send(405, { error: { code: "method", message: "POST only" } });
    if (req.headers["content-type"] !== "application/json")
      state.problems.push(`content-type ${req.headers["content-type"]}`);
    if (auth !== `Bearer ${token}` && auth !== `Bearer ${options.viewerToken}`)
      return send(401, { error: { code: "unauthorized", message: "Invalid or missing token" } });
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(body);
    } catch {
      state.problems.push("body is not JSON");
      return send(400, {
        error: {
          code: "invalid_input",
          message: "Request body is not valid JSON: send the trace snapshot as a JSON object.",
          errors: [{ field: "body", message: "not valid JSON" }],
          field: "body",
        },
      });
    }
    if (req.url === "/api/v1/mcp") {
      const params = json.params as { name?: string; arguments?: { ids?: unknown } } | undefined;
      if (json.jsonrpc !== "2.0" || json.method !== "tools/call" || params?.name !== "resolve_references")
        state.problems.push(`bad JSON-RPC call ${body}`);
      const ids = params?.arguments?.ids;
      if (!Array.isArray(ids) || ids.length > 1000 || ids.length === 0)
        state.problems.push("ids must be 1..1000");
      state.resolveCalls.push(ids as string[]);
      const references = (ids as string[]).map((id) =>
        known[id] ? { id, found: true, ...known[id] } : { id, found: false },
      );
      return send(200, {
        jsonrpc: "2.0",
        id: json.id,
        result: { content: [{ type: "text", text: "…" }], structuredContent: { references } },
      });
    }
    if (req.url === "/api/v1/traces") {
      if (auth === `Bearer ${options.viewerToken}`)
        return send(403, { error: { code: "forbidden", message: "Viewers cannot push traces" } });
      if (state.nextPush) {
        const n = state.nextPush;
        state.nextPush = undefined;
        return send(n.status, n.body);
      }
      const problem = pushProblem(json);
      if (problem) {
        state.problems.push(`push: ${problem}`);
        // The real server's shape (src/http/traces-route.ts): dotted field paths, every field listed.
        return send(400, {
          error: {
            code: "invalid_input",
            message: `Invalid trace snapshot: ${problem}: invalid`,
            errors: [{ field: problem, message: "invalid" }],
            field: problem,
          },
        });
      }
      // As the real server: a repository + commit pushed before keeps its snapshot id (200), replaced in
      // place when the content differs; a new one is created (201).
      const key = `${json.repository}@${json.commit}`;
      const { scanned_at: _s, ...content } = json;
      const same = JSON.stringify(content);
      const earlier = state.pushes.findIndex((p) => {
        const b = p as Record<string, unknown>;
        return `${b.repository}@${b.commit}` === key;
      });
      let snapshotId = state.pushes.length + 1;
      let replaced = false;
      if (earlier >= 0) {
        const { scanned_at: _e, ...old } = state.pushes[earlier] as Record<string, unknown>;
        snapshotId = earlier + 1;
        replaced = JSON.stringify(old) !== same;
        if (replaced) state.pushes[earlier] = json;
      } else state.pushes.push(json);
      const cited = [
        ...(json.citations as { id: string }[]).map((c) => c.id),
        ...(json.commits as { ids: string[] }[]).flatMap((c) => c.ids),
      ];
      return send(earlier >= 0 ? 200 : 201, {
        snapshot_id: snapshotId,
        repository: json.repository,
        commit: json.commit,
        created: earlier < 0,
        replaced,
        citations: (json.citations as unknown[]).length,
        orphans: [...new Set(cited.filter((id) => !known[id]))].sort(),
      });
    }
    return send(404, { error: { code: "not_found", message: "no such route" } });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

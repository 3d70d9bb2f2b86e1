/**
 * Reads are audited through the batched queue (http/audit.ts, flushed every 50 ms): a graceful shutdown
 * must still leave one row for every read it acknowledged (issue 16). A real server under keep-alive read
 * load gets SIGTERM; after it exits, every read answered 200 has its audit row, exactly once.
 *
 * What a crash can lose instead (SIGKILL, power loss): the rows of reads and failed calls still queued,
 * at most the last 50 ms of them plus a batch whose commit had not finished; never the row of a write,
 * which commits in the write's transaction (test/http/audit-crash.test.ts).
 */
import { Agent, request } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { listAuditEvents } from "../../src/db/audit.repo.js";
import { openDatabase } from "../../src/db/client.js";
import { cleanupNodeProcesses, ownerToken, startNode, tempDir } from "../helpers/node-process.js";

afterAll(() => cleanupNodeProcesses());

function post(
  url: URL,
  agent: Agent,
  token: string,
  body: unknown,
): Promise<{ status: number; requestId: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            requestId: String(res.headers["x-request-id"]),
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

describe("audit rows of reads on a graceful shutdown", () => {
  it("flushes the queue: every read acknowledged before SIGTERM has exactly one row after the exit", async () => {
    const dbUrl = `file:${tempDir()}/reqlix.db`;
    // Rows wait up to 5 s for their commit: at the signal, nearly every read's row is still queued.
    const server = await startNode({ REQLIX_DB_URL: dbUrl, REQLIX_AUDIT_FLUSH_MS: "5000" });
    const token = ownerToken(server);
    const endpoint = new URL("/api/v1/mcp", server.url);
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const created = await post(endpoint, agent, token, {
      jsonrpc: "2.0",
      id: 0,
      method: "tools/call",
      params: { name: "create_epic", arguments: { title: "Audited reads" } },
    });
    expect(created.status).toBe(200);

    const acknowledged: string[] = [];
    let stop = false;
    const client = async () => {
      while (!stop) {
        try {
          const reply = await post(endpoint, agent, token, {
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: "get_epic", arguments: { epic_id: "EP-001" } },
          });
          if (reply.status === 200 && reply.text.includes('"reference_id":"EP-001"'))
            acknowledged.push(reply.requestId);
        } catch {
          return; // the server closed the connection: this client is done
        }
      }
    };
    const clients = Array.from({ length: 4 }, client);
    while (acknowledged.length < 200) await new Promise((r) => setTimeout(r, 2));
    server.proc.kill("SIGTERM");
    const code = await server.exit;
    stop = true;
    await Promise.all(clients);
    agent.destroy();
    expect(code, server.stderr()).toBe(0);

    const database = await openDatabase({ url: dbUrl });
    try {
      const rows = await database.read((db) => listAuditEvents(db, { limit: 100_000 }));
      const reads = rows.filter((r) => r.target === "get_epic");
      const byRequest = new Map<string, number>();
      for (const r of reads)
        byRequest.set(r.request_id as string, (byRequest.get(r.request_id as string) ?? 0) + 1);
      const missing = acknowledged.filter((id) => byRequest.get(id) !== 1);
      expect(
        missing,
        `${missing.length} of ${acknowledged.length} acknowledged reads without exactly one row`,
      ).toEqual([]);
      expect(
        reads.every((r) => r.outcome === "ok" && r.channel === "jsonrpc" && r.reference_id === "EP-001"),
      ).toBe(true);
    } finally {
      await database.close();
    }
  }, 60_000);
});

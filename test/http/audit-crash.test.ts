/**
 * Issue item 7, end to end: the server (`src/node.ts`, a real process) takes writes from concurrent clients
 * on both faces and is killed with SIGKILL in the middle of the load. No shutdown runs, so nothing queued
 * in memory survives. Every call that was acknowledged (HTTP 200 with a result) must have its entity AND
 * its audit row on disk.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "reqlix-crash-"));
const dbUrl = `file:${join(dir, "crash.db")}`;
const children = new Set<ChildProcess>();

afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

async function startServer(): Promise<{
  proc: ChildProcess;
  url: string;
  token: string;
  exit: Promise<unknown>;
}> {
  const proc = spawn(process.execPath, ["--import", "tsx", "src/node.ts"], {
    cwd: ROOT,
    env: { ...process.env, REQLIX_DB_URL: dbUrl, PORT: "0", HOST: "127.0.0.1", REQLIX_RATE_LIMIT: "1000000" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(proc);
  let out = "";
  let err = "";
  proc.stdout?.on("data", (b: Buffer) => {
    out += b.toString();
  });
  proc.stderr?.on("data", (b: Buffer) => {
    err += b.toString();
  });
  const exit = new Promise((resolve) =>
    proc.on("close", (code, signal) => {
      children.delete(proc);
      resolve(signal ?? code);
    }),
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    const token = /Owner token[^:]*: (rqx_[A-Za-z0-9]+)/.exec(out)?.[1];
    if (url && token) return { proc, url, token, exit };
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(out + err);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Acknowledged {
  face: "jsonrpc" | "mcp";
  title: string;
  reference: string;
  requestId: string;
}

let nextId = 1;

/** One create_epic; the acknowledgement, or undefined when the call failed or the server died. */
async function createEpic(
  url: string,
  token: string,
  face: "jsonrpc" | "mcp",
  title: string,
): Promise<Acknowledged | undefined> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: { name: "create_epic", arguments: { title } },
  });
  const res = await fetch(`${url}${face === "jsonrpc" ? "/api/v1/mcp" : "/mcp"}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json",
      "mcp-protocol-version": "2025-11-25",
    },
    body,
  });
  const text = await res.text();
  if (res.status !== 200) return undefined;
  const result = (
    JSON.parse(text) as { result?: { isError?: boolean; structuredContent?: { reference_id: string } } }
  ).result;
  if (!result || result.isError || !result.structuredContent) return undefined;
  return {
    face,
    title,
    reference: result.structuredContent.reference_id,
    requestId: res.headers.get("x-request-id") as string,
  };
}

describe("kill -9 under write load", () => {
  it("every acknowledged write has its entity and its audit row", async () => {
    const server = await startServer();
    const acknowledged: Acknowledged[] = [];
    let killed = false;
    const killAt = 120;
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        const face = w % 2 === 0 ? "jsonrpc" : "mcp";
        for (let i = 0; !killed; i++) {
          try {
            const ack = await createEpic(server.url, server.token, face, `crash ${w}-${i}`);
            if (ack && !killed) acknowledged.push(ack);
          } catch {
            return; // the connection died with the server
          }
          if (!killed && acknowledged.length >= killAt) {
            killed = true;
            server.proc.kill("SIGKILL");
          }
        }
      }),
    );
    expect(await server.exit).toBe("SIGKILL");
    expect(acknowledged.length).toBeGreaterThanOrEqual(killAt);

    const check = createClient({ url: dbUrl });
    try {
      const epics = await check.execute("SELECT reference_id, title FROM epics");
      const stored = new Map(epics.rows.map((r) => [String(r.reference_id), String(r.title)]));
      const audit = await check.execute(
        "SELECT request_id, channel, reference_id, outcome FROM audit_events WHERE target = 'create_epic'",
      );
      const rows = new Map<string, { channel: string; reference: string; outcome: string }[]>();
      for (const r of audit.rows) {
        const list = rows.get(String(r.request_id)) ?? [];
        list.push({
          channel: String(r.channel),
          reference: String(r.reference_id),
          outcome: String(r.outcome),
        });
        rows.set(String(r.request_id), list);
      }
      const missingEntity = acknowledged.filter((a) => stored.get(a.reference) !== a.title);
      const missingAudit = acknowledged.filter((a) => rows.get(a.requestId)?.length !== 1);
      expect(missingEntity.map((a) => a.reference)).toEqual([]);
      expect(
        missingAudit.map((a) => `${a.face} ${a.reference} ${a.requestId}`),
        `${missingAudit.length} of ${acknowledged.length} acknowledged calls have no audit row`,
      ).toEqual([]);
      for (const a of acknowledged) {
        expect(rows.get(a.requestId)).toEqual([{ channel: a.face, reference: a.reference, outcome: "ok" }]);
      }
    } finally {
      check.close();
    }
  }, 120_000);
});

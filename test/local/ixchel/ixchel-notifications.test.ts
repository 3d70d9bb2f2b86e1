/**
 * AC-001.3: a message without an id is a notification and gets no answer. Proven with raw JSON lines on the
 * bundle's stdin, so no client library can hide a stray line.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BUNDLE, tempDir } from "../../helpers/companion.js";
import { writeEntity, writeSampleGraph } from "./repo-fixture.js";

let child: ChildProcessWithoutNullStreams | undefined;
let cleanup: (() => Promise<void>) | undefined;

afterEach(async () => {
  // The companion may still be writing its cache when killed: remove its folder only after it has exited.
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child?.once("exit", resolve));
    child.kill();
    await exited;
  }
  await cleanup?.();
});

/** Starts the bundle and collects every stdout line as parsed JSON. */
function spawnBundle(cwd: string) {
  const proc = spawn(process.execPath, [BUNDLE, "--toolsets", "ixchel"], {
    cwd,
    env: { PATH: process.env.PATH ?? "" },
  });
  child = proc;
  const lines: Record<string, unknown>[] = [];
  const waiters: { id: number; resolve: () => void }[] = [];
  let buffer = "";
  proc.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim() === "") continue;
      const message = JSON.parse(line) as Record<string, unknown>;
      lines.push(message);
      for (const w of waiters.filter((w) => w.id === message.id)) w.resolve();
    }
  });
  const send = (message: Record<string, unknown>) => proc.stdin.write(`${JSON.stringify(message)}\n`);
  const answerTo = (id: number) =>
    new Promise<void>((resolve, reject) => {
      if (lines.some((l) => l.id === id)) return resolve();
      waiters.push({ id, resolve });
      setTimeout(
        () => reject(new Error(`no answer to request ${id}; stdout so far: ${JSON.stringify(lines)}`)),
        20_000,
      );
    });
  return { lines, send, answerTo };
}

describe("progress on the wire", () => {
  it("sends progress notifications for the request's token, the last at the total, before the response", async () => {
    const dir = await tempDir("ixchel-progress-raw-");
    cleanup = dir.cleanup;
    for (let i = 0; i < 1100; i++) writeEntity(dir.path, { id: `ses-${(0x200000 + i).toString(16)}` });
    const { lines, send, answerTo } = spawnBundle(dir.path);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    await answerTo(1);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "ixchel_sync", arguments: {}, _meta: { progressToken: "tok-7" } },
    });
    await answerTo(2);
    const after = lines.slice(1);
    const progress = after.filter((l) => l.method === "notifications/progress");
    expect(after.at(-1)?.id).toBe(2);
    expect(progress.length).toBe(after.length - 1);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    const params = progress.map(
      (p) => p.params as { progressToken: string; progress: number; total: number },
    );
    expect(params.every((p) => p.progressToken === "tok-7" && p.total === 1100)).toBe(true);
    expect(params.map((p) => p.progress)).toEqual([0, 500, 1000, 1100]);
    // Without a token, the same call sends no notification at all.
    send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "ixchel_sync", arguments: {} } });
    await answerTo(3);
    expect(lines.at(-1)?.id).toBe(3);
    expect(lines.at(-2)?.id).toBe(2);
  });
});

describe("notifications (AC-001.3)", () => {
  it("never answers a message without an id, and answers each request with an id exactly once", async () => {
    const dir = await tempDir("ixchel-notify-");
    cleanup = dir.cleanup;
    writeSampleGraph(dir.path);
    const { lines, send, answerTo } = spawnBundle(dir.path);

    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    await answerTo(1);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    // Requests without ids: a tool call that would write a file, a ping, a list, and an unknown method.
    send({
      jsonrpc: "2.0",
      method: "tools/call",
      params: { name: "ixchel_create", arguments: { kind: "idea", title: "must not be written" } },
    });
    send({ jsonrpc: "2.0", method: "ping" });
    send({ jsonrpc: "2.0", method: "tools/list" });
    send({ jsonrpc: "2.0", method: "no/such/method" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "ixchel_search", arguments: { query: "database" } },
    });
    await answerTo(2);
    send({ jsonrpc: "2.0", id: 3, method: "ping" });
    await answerTo(3);

    expect(lines.map((l) => l.id)).toEqual([1, 2, 3]);
    expect(lines.every((l) => l.jsonrpc === "2.0")).toBe(true);
    const search = lines[1]?.result as { structuredContent?: { mode?: string } };
    expect(search.structuredContent?.mode).toBe("lexical");
    expect(lines[2]?.result).toEqual({});
    // The tool call sent as a notification was not run.
    expect(readdirSync(join(dir.path, ".ixchel/ideas"))).toEqual(["idea-0000d1.md"]);
  });
});

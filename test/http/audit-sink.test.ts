/**
 * The audit sink's promises (http/audit.ts): rows waiting together share one promise, which settles only
 * once their rows are committed (or given up on), also when rows arrive while a batch is being written and
 * when the queue overflows. Real database; no app.
 */
import { afterEach, describe, expect, it } from "vitest";
import { listAuditEvents } from "../../src/db/audit.repo.js";
import { type AuditSink, createAuditSink } from "../../src/http/audit.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

function row(requestId: string, workspaceId: number) {
  return {
    workspaceId,
    userId: null,
    tokenId: null,
    channel: "jsonrpc",
    method: "tools/call",
    target: "get_epic",
    outcome: "ok" as const,
    requestId,
  };
}

async function stored(app: TestApp): Promise<string[]> {
  const events = await app.database.read((db) => listAuditEvents(db, { limit: 1000 }));
  // The bootstrap's own row has no request id.
  return events.flatMap((e) => (e.request_id ? [e.request_id] : [])).reverse();
}

describe("audit sink", () => {
  it("settles each row's promise only after its row is stored, across batches and rows queued mid-write", async () => {
    t = await createTestApp();
    const app = t;
    const sink: AuditSink = createAuditSink({ database: app.database, batchSize: 2, flushDelayMs: 0 });
    const seen: string[][] = [];
    const first = ["r1", "r2", "r3"].map((id) =>
      sink.record(row(id, app.workspaceId)).then(async () => seen.push(await stored(app))),
    );
    // Queued while the first rows are being written: their promise must wait for their own batch.
    await Promise.resolve();
    const later = sink.record(row("r4", app.workspaceId)).then(async () => seen.push(await stored(app)));
    await Promise.all([...first, later]);
    for (const rows of seen.slice(0, 3)) expect(rows).toEqual(expect.arrayContaining(["r1", "r2", "r3"]));
    expect(seen[3]).toEqual(expect.arrayContaining(["r1", "r2", "r3", "r4"]));
    await sink.flush();
    expect(await stored(app)).toEqual(["r1", "r2", "r3", "r4"]);
  });

  it("drops the oldest rows when the queue is full, settles every promise, and keeps the newest", async () => {
    t = await createTestApp();
    const app = t;
    const lines: string[] = [];
    const sink = createAuditSink({
      database: app.database,
      maxQueue: 3,
      flushDelayMs: 60_000,
      logger: { log: (_level, message) => lines.push(message) },
    });
    const promises = ["q1", "q2", "q3", "q4", "q5"].map((id) => sink.record(row(id, app.workspaceId)));
    await sink.flush();
    await Promise.all(promises);
    expect(await stored(app)).toEqual(["q3", "q4", "q5"]);
    expect(lines.filter((l) => l.includes("oldest rows dropped"))).toHaveLength(2);
  });
});

/**
 * A link acknowledged by one companion process must be visible to a read in another one right after.
 * Reads may reuse a sync from moments ago (IxchelStore.syncIfStale), and the window grows with the time a
 * sync takes: under load, or in a graph of a thousand files, it reaches seconds. Without a signal from the
 * writers, the other process answered from its old sync and an acknowledged link looked lost (the
 * concurrent-writers test once missed the last link of the second process that way).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Companion, startCompanion, tempDir, textOf } from "../../helpers/companion.js";
import { writeEntity } from "./repo-fixture.js";

// Enough files that a sync takes long enough for the freshness window to span the next calls.
const FILES = 1500;
const ROUNDS = 5;

let root: string;
let cleanup: () => Promise<void>;
let reader: Companion;
let writer: Companion;

const issue = (i: number) => `iss-${(0x1000 + i).toString(16).padStart(6, "0")}`;

beforeAll(async () => {
  ({ path: root, cleanup } = await tempDir("ixchel-raw-"));
  writeEntity(root, { id: "dec-00000a", title: "Hub decision" });
  for (let i = 0; i < FILES; i++)
    writeEntity(root, { id: issue(i), title: `Issue ${i}`, body: `Issue ${i} body.` });
  reader = await startCompanion({ args: ["--toolsets", "ixchel"], cwd: root });
  writer = await startCompanion({ args: ["--toolsets", "ixchel"], cwd: root });
}, 60_000);

afterAll(async () => {
  await Promise.all([reader?.close(), writer?.close()]);
  await cleanup();
});

async function linked(companion: Companion): Promise<string[]> {
  const graph = await companion.client.callTool({ name: "ixchel_graph", arguments: { id: "dec-00000a" } });
  expect(graph.isError, textOf(graph)).toBeFalsy();
  const outgoing = (graph.structuredContent as { outgoing: { rel: string; targets: { id: string }[] }[] })
    .outgoing;
  return (outgoing.find((o) => o.rel === "relates_to")?.targets.map((t) => t.id) ?? []).sort();
}

describe("a link acknowledged by one process", () => {
  it("is seen at once by a read in another process that synced moments before", async () => {
    const acknowledged: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // The reader syncs now (the first time cold: the slowest sync, the widest window)…
      expect(await linked(reader)).toEqual([...acknowledged].sort());
      // …the other process links and acknowledges…
      const to = issue(round);
      const result = await writer.client.callTool({
        name: "ixchel_link",
        arguments: { from: "dec-00000a", rel: "relates_to", to },
      });
      expect(result.isError, textOf(result)).toBeFalsy();
      acknowledged.push(to);
      // …and the reader's next read must include it.
      expect(await linked(reader)).toEqual([...acknowledged].sort());
    }
  }, 120_000);
});

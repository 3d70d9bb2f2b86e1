import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  emptyTarget,
  readSyncState,
  STATE_FILE,
  targetKey,
  writeSyncState,
} from "../../../src/local/bridge/sync-state.js";
import { tempDir } from "../../helpers/companion.js";

let root: { path: string; cleanup(): Promise<void> };
beforeEach(async () => {
  root = await tempDir("reqlix-sync-state-");
});
afterEach(async () => {
  await root.cleanup();
});

describe("the sync state file", () => {
  it("is absent before the first sync and round-trips, sorted, with no temp file left", async () => {
    expect(await readSyncState(root.path)).toEqual({ version: 1, targets: {} });
    const t = emptyTarget("http://h:1", "default");
    t.requirements["T.U.2"] = { reference_id: "REQ-002", hash: "b", hosted_revision: 3 };
    t.requirements["G.G.1"] = { reference_id: "REQ-001", hash: "a", hosted_revision: 1 };
    t.epics.T = "EP-002";
    t.epics.G = "EP-001";
    const key = targetKey("http://h:1/", "default");
    await writeSyncState(root.path, { version: 1, targets: { [key]: t } });
    const text = await readFile(join(root.path, STATE_FILE), "utf8");
    expect(text.indexOf('"G.G.1"')).toBeLessThan(text.indexOf('"T.U.2"'));
    expect(text.endsWith("}\n")).toBe(true);
    expect((await readSyncState(root.path)).targets[targetKey("http://h:1", "default")]).toEqual(t);
    expect(await readdir(join(root.path, ".reqlix"))).toEqual(["sync.json"]);
  });

  it("refuses a damaged file with what to do, instead of guessing", async () => {
    await mkdir(join(root.path, ".reqlix"));
    await writeFile(
      join(root.path, STATE_FILE),
      '{"version":1,"targets":{"x":{"url":"u","workspace":"w","epics":{},"stories":{},"requirements":{"G.G.1":{"hash":1}}}}}',
    );
    await expect(readSyncState(root.path)).rejects.toThrow(
      /requirement G\.G\.1 of "x" is malformed.*delete it/,
    );
    await writeFile(join(root.path, STATE_FILE), "{not json");
    await expect(readSyncState(root.path)).rejects.toThrow(/is not a valid reqlix sync state/);
  });
});

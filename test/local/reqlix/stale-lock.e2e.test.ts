/**
 * Hardening #9: a lock left by a crashed writer names a pid that may be alive again after a container
 * restart (an unrelated process, or the new writer itself) or a host that is gone. Real companion processes
 * (the built bundle) must write anyway once the lock has gone unrefreshed for ~10 s.
 */
import { writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startCompanion, tempDir } from "../../helpers/companion.js";
import { ok, reqlix } from "./reqlix-client.js";

let projects: { path: string; cleanup(): Promise<void> }[] = [];
beforeEach(() => {
  projects = [];
});
afterEach(async () => {
  await Promise.all(projects.map((p) => p.cleanup()));
});

type Owner = (companionPid: number) => { pid: number; host: string };

const cases: [string, Owner][] = [
  ["a live unrelated pid (pid 1)", () => ({ pid: 1, host: hostname() })],
  ["a live unrelated pid (the test runner)", () => ({ pid: process.pid, host: hostname() })],
  ["the writer's own pid", (own) => ({ pid: own, host: hostname() })],
  ["another host", () => ({ pid: process.pid, host: "build-box-7" })],
];

describe("a crashed writer's lock file", () => {
  it("delays a companion's write by at most ~10 s, whatever pid or host the lock names", async () => {
    const runs = cases.map(async ([what, owner]) => {
      const project = await tempDir("reqlix-stale-");
      projects.push(project);
      const companion = await startCompanion({ args: ["--toolsets", "reqlix"] });
      try {
        const call = reqlix(companion, project.path);
        ok(await call("insert_requirement", { category: "other", chapter: "A", title: "t", text: "x" }));
        const lock = join(project.path, "docs/development/requirements/general.md.lock");
        const { pid, host } = owner(companion.transport.pid as number);
        await writeFile(lock, JSON.stringify({ pid, host, since: new Date().toISOString(), token: "t" }));
        const started = Date.now();
        const answer = await call<{ index: string }>("insert_requirement", {
          category: "general",
          chapter: "Roadmap",
          title: `written despite ${what}`,
          text: "Body.",
        });
        return { what, answer, ms: Date.now() - started };
      } finally {
        await companion.close();
      }
    });
    for (const { what, answer, ms } of await Promise.all(runs)) {
      expect({ what, index: ok(answer).index }).toEqual({ what, index: "G.R.1" });
      expect(ms, what).toBeLessThan(10_000 + 4_000);
    }
  }, 40_000);
});

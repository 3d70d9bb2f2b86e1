/**
 * A rescan from the disk cache counts the citations of untouched files in their stored columns (see
 * CoverageTally): its coverage, orphans and suspects (in citation order) must be those of a cold scan.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildIndex, HostedResolver } from "../../../src/local/trace/index-model.js";
import { scanProject } from "../../../src/local/trace/scan.js";
import { ageWorkingCopy, type Fixture, makeFixture } from "./fixture.js";

describe("coverage of a rescan from the disk cache", () => {
  let fx: Fixture;
  let cold = 0;
  beforeEach(async () => {
    fx = await makeFixture();
    // Orphans (G.GI.9, G.ZZ.1), suspects (G.GI.2@1, @2 while it is at 3), pins that are current (G.GI.2@3),
    // in many files so that stored rows and re-read files interleave.
    const lines = ["G.GI.1", "G.GI.9", "G.GI.2@1", "REQ-012", "G.GI.2@3", "G.ZZ.1", "G.GI.2@2", "AC-4"];
    for (let i = 0; i < 24; i++) {
      const body = Array.from({ length: 1 + (i % 5) }, (_, k) => `// ${lines[(i + k) % lines.length]}`);
      await fx.write(
        `src/m${String(i).padStart(2, "0")}.${i % 3 === 0 ? "test." : ""}ts`,
        `${body.join("\n")}\n`,
      );
    }
    fx.commit("many citing files");
    await ageWorkingCopy(fx.root);
    fx.git("update-index", "-q", "--refresh");
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  const coverage = async (env: Record<string, string>) => {
    const index = await buildIndex(
      await scanProject(fx.root, { env, persist: true }),
      new HostedResolver(undefined),
    );
    return index.coverage;
  };

  it("equals a cold scan's after files change, are added and removed", async () => {
    await coverage(fx.env);
    const steps: (() => Promise<void>)[] = [
      async () => {},
      () => fx.write("src/m05.ts", "// G.GI.9 again, G.GI.2@1 and G.GI.1\n"),
      () => fx.write("src/new.test.ts", "// G.ZZ.1 G.GI.2@2 G.GI.3\n"),
      async () => {
        fx.git("rm", "-q", "src/m11.ts");
      },
      () => fx.write("src/m17.ts", "// nothing cited any more\n"),
    ];
    for (const step of steps) {
      await step();
      const rescan = await coverage(fx.env);
      const reference = await coverage({ ...fx.env, REQLIX_CACHE_DIR: join(fx.cacheDir, `cold-${cold++}`) });
      expect(rescan).toEqual(reference);
      expect(reference.orphans.length).toBeGreaterThan(0);
      expect(reference.suspects.length).toBeGreaterThan(0);
    }
  });

  it("equals a cold scan's when the stored files cite no orphan and no suspect, and changed ones do", async () => {
    // The cache file's totals count the untouched files (no pass over them); the changed ones are visited.
    await fx.write("src/auth.ts", "// REQ-012, G.GI.1 and G.GI.2@3, all current\n");
    for (let i = 0; i < 24; i++) {
      const name = `src/m${String(i).padStart(2, "0")}.${i % 3 === 0 ? "test." : ""}ts`;
      await fx.write(name, `// G.GI.${1 + (i % 3)}\n`);
    }
    fx.commit("no orphans, no suspects");
    await ageWorkingCopy(fx.root);
    fx.git("update-index", "-q", "--refresh");
    const cold0 = await coverage({ ...fx.env, REQLIX_CACHE_DIR: join(fx.cacheDir, "cold-a") });
    expect([cold0.orphans.length, cold0.suspects.length]).toEqual([0, 0]);
    await coverage(fx.env);
    const steps: (() => Promise<void>)[] = [
      async () => {},
      () => fx.write("src/m03.ts", "// G.GI.9 is an orphan, G.GI.2@1 a suspect\n"),
      () => fx.write("src/m21.test.ts", "// G.ZZ.1 G.GI.2@2 G.GI.3\n"),
      async () => {
        fx.git("rm", "-q", "src/m07.ts", "src/m08.ts");
      },
      () => fx.write("src/m03.ts", "// clean again: G.GI.1\n"),
    ];
    for (const step of steps) {
      await step();
      const rescan = await coverage(fx.env);
      const reference = await coverage({ ...fx.env, REQLIX_CACHE_DIR: join(fx.cacheDir, `cold-${cold++}`) });
      expect(rescan).toEqual(reference);
    }
  });
});

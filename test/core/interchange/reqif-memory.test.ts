/**
 * A 100 MB ReqIF import grows memory by less than 200 MB (issue 15): the file is parsed as it streams, no
 * DOM. Measured in a child process (reqif-memory-child.ts) with a V8 heap capped at 256 MB, which a DOM
 * of the file (or the file as one string) could not fit in, as resident-set growth over the idle process.
 */
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import type { EpicDoc, RequirementDoc, UserStoryDoc } from "../../../src/core/interchange/document.js";
import type { ExportSource } from "../../../src/core/interchange/formats.js";
import { exportReqif } from "../../../src/core/interchange/reqif/reqif-write.js";

const dir = mkdtempSync(join(tmpdir(), "reqlix-reqif-memory-"));
afterAll(() => {
  if (!process.env.KEEP_REQIF) rmSync(dir, { recursive: true, force: true });
});

const MB = 1024 * 1024;
const STORIES_PER_EPIC = 20;
const REQUIREMENTS_PER_STORY = 50;
const TEXT =
  "The system shall keep every value it was sent, exactly, and say what was wrong otherwise. ".repeat(5);

/** A workspace of `epics` epics generated as it is read: nothing is held. */
function syntheticSource(epics: number): ExportSource {
  const at = "2026-11-25T10:00:00.000Z";
  const num = (n: number) => String(n).padStart(3, "0");
  async function* none<T>(): AsyncIterable<T> {}
  return {
    header: {
      exported_at: at,
      workspace: { slug: "big", name: "Big" },
      scope: { kind: "workspace" },
      requirement_types: [{ name: "Functional", description: "" }],
      relationship_types: [{ name: "depends_on", description: "" }],
    },
    async *epics() {
      for (let e = 1; e <= epics; e++) {
        yield {
          reference_id: `EP-${num(e)}`,
          title: `Epic ${e}`,
          description: TEXT,
          status: "Draft",
          priority: 2,
        } as EpicDoc;
      }
    },
    async *userStories() {
      for (let n = 1; n <= epics * STORIES_PER_EPIC; n++) {
        const epic = `EP-${num(Math.ceil(n / STORIES_PER_EPIC))}`;
        yield {
          reference_id: `US-${num(n)}`,
          epic,
          title: `Story ${n}`,
          description: TEXT,
          status: "Draft",
          priority: 3,
        } as UserStoryDoc;
      }
    },
    async *requirements() {
      for (let n = 1; n <= epics * STORIES_PER_EPIC * REQUIREMENTS_PER_STORY; n++) {
        yield {
          reference_id: `REQ-${num(n)}`,
          user_story: `US-${num(Math.ceil(n / REQUIREMENTS_PER_STORY))}`,
          title: `Requirement ${n}`,
          description: `${TEXT}\n${n}`,
          type: "Functional",
          status: "Active",
          priority: 1 + (n % 4),
        } as RequirementDoc;
      }
    },
    async *relationships() {
      const total = epics * STORIES_PER_EPIC * REQUIREMENTS_PER_STORY;
      for (let n = 2; n <= total; n += 10)
        yield { source: `REQ-${num(n)}`, target: `REQ-${num(n - 1)}`, type: "depends_on" };
    },
    criteriaOf: () => none(),
    userStoriesOf: () => none(),
    requirementsOf: () => none(),
    acceptanceCriteria: () => none(),
    comments: () => none(),
  };
}

async function writeFile(path: string, epics: number): Promise<void> {
  const out = createWriteStream(path);
  await exportReqif(syntheticSource(epics), {
    write: (chunk) =>
      new Promise<void>((ok, fail) => {
        out.write(chunk, (err) => (err ? fail(err) : ok()));
      }),
  });
  await new Promise<void>((ok) => out.end(ok));
}

describe("ReqIF import memory", () => {
  test("a 100 MB file grows the reading process by less than 200 MB", async () => {
    const file = join(dir, "big.reqif");
    await writeFile(file, 46);
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(100 * MB);
    const run = spawnSync(
      process.execPath,
      [
        "--max-old-space-size=256",
        "--expose-gc",
        "--import",
        "tsx",
        resolve(import.meta.dirname, "reqif-memory-child.ts"),
        file,
      ],
      { encoding: "utf8", timeout: 300_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { growth: number; requirements: number; relationships: number };
    expect(result.requirements).toBe(46 * STORIES_PER_EPIC * REQUIREMENTS_PER_STORY);
    expect(result.relationships).toBe(Math.ceil((result.requirements - 1) / 10));
    console.log(
      `ReqIF import of ${(size / MB).toFixed(0)} MB: resident memory grew by ${(result.growth / MB).toFixed(0)} MB`,
    );
    expect(result.growth).toBeLessThan(200 * MB);
  }, 600_000);
});

/**
 * Two companion processes edit one entity's links at the same time. Each link is a read-modify-write of
 * the same file; without the cross-process lock one process's write would replace the other's and an
 * acknowledged link would be lost.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Companion, startCompanion, tempDir, textOf } from "../../helpers/companion.js";
import { writeEntity } from "./repo-fixture.js";

const PER_PROCESS = 20;

/** Everything after the closing frontmatter fence. */
function bodyOf(text: string): string {
  return text.slice(text.indexOf("\n---\n", 4) + 5);
}

let root: string;
let originalBody: string;
let cleanup: () => Promise<void>;
const companions: Companion[] = [];

beforeAll(async () => {
  ({ path: root, cleanup } = await tempDir("ixchel-writers-"));
  const hub = writeEntity(root, {
    id: "dec-00000a",
    title: "Hub decision",
    body: "The body stays as it is.\n",
  });
  originalBody = bodyOf(readFileSync(hub, "utf8"));
  for (let i = 0; i < PER_PROCESS * 2; i++) {
    writeEntity(root, { id: `iss-${(0x100 + i).toString(16).padStart(6, "0")}`, title: `Issue ${i}` });
  }
  for (let p = 0; p < 2; p++) {
    companions.push(await startCompanion({ args: ["--toolsets", "ixchel"], cwd: root }));
  }
});

afterAll(async () => {
  await Promise.all(companions.map((c) => c.close()));
  await cleanup();
});

describe("ixchel_link from two processes at once", () => {
  it("keeps every acknowledged link and the body byte for byte", async () => {
    const acknowledged: string[] = [];
    await Promise.all(
      companions.map(async (companion, p) => {
        for (let i = 0; i < PER_PROCESS; i++) {
          const to = `iss-${(0x100 + p * PER_PROCESS + i).toString(16).padStart(6, "0")}`;
          const result = await companion.client.callTool({
            name: "ixchel_link",
            arguments: { from: "dec-00000a", rel: "relates_to", to },
          });
          expect(result.isError, textOf(result)).toBeFalsy();
          acknowledged.push(to);
        }
      }),
    );
    expect(acknowledged).toHaveLength(PER_PROCESS * 2);

    const text = readFileSync(join(root, ".ixchel/decisions/dec-00000a.md"), "utf8");
    expect(bodyOf(text)).toBe(originalBody);
    expect(originalBody).toContain("The body stays as it is.");
    const first = companions[0];
    if (!first) throw new Error("no companion was started");
    const graph = await first.client.callTool({
      name: "ixchel_graph",
      arguments: { id: "dec-00000a" },
    });
    const outgoing = (graph.structuredContent as { outgoing: { rel: string; targets: { id: string }[] }[] })
      .outgoing;
    const linked = outgoing.find((o) => o.rel === "relates_to")?.targets.map((t) => t.id) ?? [];
    expect([...linked].sort()).toEqual([...acknowledged].sort());
  });

  it("keeps every link while another process updates the same entity's title and tags (one lock for both)", async () => {
    const [linker, updater] = companions as [Companion, Companion];
    const targets = Array.from(
      { length: PER_PROCESS },
      (_, i) => `iss-${(0x100 + i).toString(16).padStart(6, "0")}`,
    );
    await Promise.all([
      (async () => {
        for (const to of targets) {
          const result = await linker.client.callTool({
            name: "ixchel_link",
            arguments: { from: "dec-00000a", rel: "blocks", to },
          });
          expect(result.isError, textOf(result)).toBeFalsy();
        }
      })(),
      (async () => {
        for (let i = 0; i < PER_PROCESS; i++) {
          const result = await updater.client.callTool({
            name: "ixchel_update",
            arguments: { id: "dec-00000a", title: `Hub decision v${i}`, tags: [`v${i}`] },
          });
          expect(result.isError, textOf(result)).toBeFalsy();
        }
      })(),
    ]);
    const text = readFileSync(join(root, ".ixchel/decisions/dec-00000a.md"), "utf8");
    expect(bodyOf(text)).toBe(originalBody);
    const shown = await linker.client.callTool({ name: "ixchel_show", arguments: { id: "dec-00000a" } });
    const fm = (shown.structuredContent as { frontmatter: Record<string, unknown> }).frontmatter;
    expect(fm.title).toBe(`Hub decision v${PER_PROCESS - 1}`);
    expect(fm.tags).toEqual([`v${PER_PROCESS - 1}`]);
    expect([...(fm.blocks as string[])].sort()).toEqual([...targets].sort());
    expect((fm.relates_to as string[]).length).toBe(PER_PROCESS * 2);
  });
});

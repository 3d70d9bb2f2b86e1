/**
 * Several companion processes writing one requirements directory, and a process killed mid-write: real
 * processes (the built bundle), real files, the SDK Client over stdio.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startCompanion, tempDir } from "../../helpers/companion.js";
import { ok, parseSpec, reqlix } from "./reqlix-client.js";

let project: { path: string; cleanup(): Promise<void> };
const reqDir = () => join(project.path, "docs/development/requirements");

beforeEach(async () => {
  project = await tempDir("reqlix-conc-");
});
afterEach(async () => {
  await project.cleanup();
});

describe("two processes writing at once", () => {
  it("keeps all 100 requirements two processes insert at once into one new chapter, with unique indices", async () => {
    const [a, b] = await Promise.all([
      startCompanion({ args: ["--toolsets", "reqlix"] }),
      startCompanion({ args: ["--toolsets", "reqlix"] }),
    ]);
    try {
      const callA = reqlix(a, project.path);
      const callB = reqlix(b, project.path);
      const inserts = (call: typeof callA, who: string) =>
        Array.from({ length: 50 }, (_, i) =>
          call<{ index: string }>("insert_requirement", {
            category: "general",
            chapter: "Shared",
            title: `${who} ${i}`,
            text: `Body of ${who} ${i}.`,
          }),
        );
      const answers = await Promise.all([...inserts(callA, "a"), ...inserts(callB, "b")]);
      const indices = answers.map((x) => ok(x).index);
      expect(new Set(indices).size).toBe(100);
      expect([...indices].sort((x, y) => Number(x.split(".")[2]) - Number(y.split(".")[2]))).toEqual(
        Array.from({ length: 100 }, (_, i) => `G.S.${i + 1}`),
      );
      const listed = ok(
        await callA<{ requirements: { index: string; title: string }[] }>("get_requirements", {
          category: "general",
          chapter: "Shared",
        }),
      );
      expect(listed.requirements).toHaveLength(100);
      expect(new Set(listed.requirements.map((r) => r.title)).size).toBe(100);
      const content = await readFile(join(reqDir(), "general.md"), "utf8");
      expect(content.match(/^# Shared$/gm)).toHaveLength(1);
      // Every body is where it belongs.
      const spec = parseSpec(content);
      for (const r of spec.requirements) expect(r.text).toBe(`Body of ${r.title}.`);
      expect((await readdir(reqDir())).sort()).toEqual(["AGENTS.md", "general.md"]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("gives two new categories with the same first letter different prefixes, even when created at once", async () => {
    const [a, b] = await Promise.all([
      startCompanion({ args: ["--toolsets", "reqlix"] }),
      startCompanion({ args: ["--toolsets", "reqlix"] }),
    ]);
    try {
      for (let round = 0; round < 5; round++) {
        const p = await tempDir("reqlix-prefix-race-");
        try {
          const [x, y] = await Promise.all([
            reqlix(a, p.path)<{ index: string }>("insert_requirement", {
              category: "general",
              chapter: "A",
              title: "t",
              text: "x",
            }),
            reqlix(b, p.path)<{ index: string }>("insert_requirement", {
              category: "glossary",
              chapter: "A",
              title: "t",
              text: "x",
            }),
          ]);
          const prefixes = [ok(x).index.split(".")[0], ok(y).index.split(".")[0]];
          // First come gets G; the other grows by one consonant of its own name.
          expect(new Set(prefixes).size, prefixes.join(" ")).toBe(2);
          expect([
            ["G", "GL"],
            ["G", "GN"],
          ]).toContainEqual(prefixes.sort());
        } finally {
          await p.cleanup();
        }
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

/** Resolves once a writer's lock is in `dir` (polled: fs.watch may miss a folder made and gone at once). */
async function lockSeen(dir: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if ((await readdir(dir)).some((n) => n.endsWith(".lock"))) return;
    await new Promise((r) => setTimeout(r, 1));
  }
  throw new Error(`no write lock appeared in ${dir} within ${timeoutMs} ms`);
}

describe("a writer killed with SIGKILL", () => {
  it("leaves a parseable category that the next writer continues (stale lock recovered)", async () => {
    // A 4 MB category so that each rewrite takes long enough for the kill to land inside one.
    await mkdir(reqDir(), { recursive: true });
    const seeded: string[] = ["# Seed\n"];
    for (let i = 1; i <= 8000; i++)
      seeded.push(`## G.S.${i}: seed ${i}\n\n${"Lorem ipsum dolor sit amet. ".repeat(16)}\n`);
    const original = seeded.join("\n");
    await writeFile(join(reqDir(), "general.md"), original);
    await writeFile(join(reqDir(), "AGENTS.md"), "# Instructions\n");

    let caughtMidWrite = 0;
    // "lock": killed the moment its write lock is seen (inside a rewrite, whatever the machine's speed);
    // the others after a delay from the start, wherever that lands.
    for (const delay of ["lock", 150, 600] as const) {
      const victim = await startCompanion({ args: ["--toolsets", "reqlix"] });
      const call = reqlix(victim, project.path);
      let acknowledged = 0;
      let stop = false;
      const loop = (async () => {
        for (let i = 0; !stop; i++) {
          try {
            const r = await call("insert_requirement", {
              category: "general",
              chapter: "Killed",
              title: `k${delay}-${i}`,
              text: `killed ${i}`,
            });
            if (r.success) acknowledged++;
          } catch {
            return; // the connection died with the process
          }
        }
      })();
      if (delay === "lock") await lockSeen(reqDir(), 30_000);
      else await new Promise((r) => setTimeout(r, delay));
      const pid = victim.transport.pid;
      if (pid === null) throw new Error("no pid");
      process.kill(pid, "SIGKILL");
      stop = true;
      await loop;
      await victim.close().catch(() => {});

      // The file is whole: it parses, the seed is intact, every acknowledged insert is there.
      const content = await readFile(join(reqDir(), "general.md"), "utf8");
      expect(content.startsWith(original)).toBe(true);
      const parsed = parseSpec(content);
      const killed = parsed.requirements.filter((r) => r.chapter === "Killed");
      expect(parsed.requirements.filter((r) => r.chapter === "Seed")).toHaveLength(8000);
      for (const r of killed) expect(r.text).toMatch(/^(killed \d+|after)$/);

      // A lock or temp file left behind means the kill landed inside a write.
      if ((await readdir(reqDir())).some((n) => n.endsWith(".lock") || n.endsWith(".tmp"))) caughtMidWrite++;

      // A new process reads it and writes on, past whatever the killed one left behind.
      const next = await startCompanion({ args: ["--toolsets", "reqlix"] });
      try {
        const c = reqlix(next, project.path);
        const chapters = ok(
          await c<{ chapters: string[] }>("get_chapters", { category: "general" }),
        ).chapters;
        expect(chapters).toEqual(killed.length > 0 ? ["Seed", "Killed"] : ["Seed"]);
        const listed =
          killed.length > 0
            ? ok(
                await c<{ requirements: { index: string }[] }>("get_requirements", {
                  category: "general",
                  chapter: "Killed",
                }),
              ).requirements
            : [];
        expect(listed.length).toBe(killed.length);
        expect(listed.length).toBeGreaterThanOrEqual(acknowledged);
        const started = Date.now();
        const r = ok(
          await c<{ index: string }>("insert_requirement", {
            category: "general",
            chapter: "Killed",
            title: `after ${delay}`,
            text: "after",
          }),
        );
        // The killed writer's lock is taken over once unrefreshed for 10 s (file-lock.ts), whatever its pid.
        expect(Date.now() - started).toBeLessThan(10_000 + 3_000);
        expect(r.index).toBe(`G.K.${listed.length + 1}`);
        expect(ok(await c("get_requirement", { index: r.index }))).toMatchObject({ text: "after" });
        // A kill between the lock's mkdir and its rename can leave a hidden staging folder: harmless (no
        // lock), and swept by a later holder once it is older than the stale age (file-lock.test.ts).
        const left = (await readdir(reqDir())).filter((n) => !/^\.general\.md\.lock-.*\.staging$/.test(n));
        expect(left.sort()).toEqual(["AGENTS.md", "general.md"]);
      } finally {
        await next.close();
      }
    }
    // The "lock" round at least was killed inside a write (its lock was left behind).
    expect(caughtMidWrite).toBeGreaterThan(0);
  }, 150_000); // each round killed inside a write waits 10 s for its lock to go stale
});

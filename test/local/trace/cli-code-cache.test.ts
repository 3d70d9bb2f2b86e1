/**
 * The V8 code cache of the bundle's lazily compiled parts (src/local/code-cache.ts), through the built
 * `reqlix-mcp trace` on the system's Node 20 and on this Node: written once per Node after a run, used
 * after, and a corrupt or foreign cache file is ignored (the report is the same) and rewritten.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Script } from "node:vm";
import { crc32 } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BUNDLE } from "../../helpers/companion.js";
import { type Fixture, makeFixture } from "./fixture.js";

const NODES = ["/usr/bin/node", process.execPath]; // Node 20 (the floor) and the one running the tests

function trace(node: string, fx: Fixture, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      node,
      [BUNDLE, "trace", "--format", "json"],
      { cwd: fx.root, env: { ...fx.env, ...env }, maxBuffer: 1 << 26 },
      (error, stdout) => (error ? reject(error) : resolve(stdout.replace(/"scanned_at": "[^"]*"/, ""))),
    );
  });
}

/** Header (magic, CRC-32 of the payload, its length) and payload of a cache file. */
function wellFormed(data: Buffer): boolean {
  return (
    data.readUInt32LE(0) === 0x52514343 &&
    data.readUInt32LE(8) === data.length - 12 &&
    crc32(data.subarray(12)) === data.readUInt32LE(4)
  );
}

function withHeader(payload: Buffer): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt32LE(0x52514343, 0);
  header.writeUInt32LE(crc32(payload), 4);
  header.writeUInt32LE(payload.length, 8);
  return Buffer.concat([header, payload]);
}

describe("reqlix-mcp trace's code cache", () => {
  let fx: Fixture;
  let dir: string;
  beforeEach(async () => {
    fx = await makeFixture();
    dir = await mkdtemp(join(tmpdir(), "reqlix-code-cache-"));
  });
  afterEach(async () => {
    await fx.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it("is written once per Node, then used; the report is the same with and without it", async () => {
    const env = { REQLIX_CODE_CACHE_DIR: dir };
    const reference = await trace(process.execPath, fx, { NODE_DISABLE_COMPILE_CACHE: "1" });
    expect(await readdir(dir)).toEqual([]); // switched off: nothing written
    for (const node of NODES) {
      const before = new Set(await readdir(dir));
      expect(await trace(node, fx, env)).toBe(reference);
      const made = (await readdir(dir)).filter((name) => !before.has(name));
      expect(made).toHaveLength(1);
      const file = join(dir, made[0] as string);
      expect(wellFormed(await readFile(file))).toBe(true);
      const { mtimeMs } = await stat(file);
      expect(await trace(node, fx, env)).toBe(reference);
      expect((await stat(file)).mtimeMs).toBe(mtimeMs); // used, not rewritten
    }
  });

  it("a corrupt, truncated or foreign cache file is ignored and rewritten", async () => {
    const env = { REQLIX_CODE_CACHE_DIR: dir };
    const reference = await trace(process.execPath, fx, env);
    const [name] = await readdir(dir);
    const file = join(dir, name as string);
    const good = await readFile(file);
    const flipped = Buffer.from(good);
    flipped[good.length >> 1] = (flipped[good.length >> 1] as number) ^ 0xff; // the CRC no longer matches
    const variants = [
      Buffer.from("not a code cache"),
      good.subarray(0, good.length >> 1),
      flipped,
      // A well-formed file whose payload V8 made for other code: V8 rejects it.
      withHeader(new Script("globalThis.x = 1 + 1").createCachedData()),
    ];
    for (const bad of variants) {
      await writeFile(file, bad);
      expect(await trace(process.execPath, fx, env)).toBe(reference);
      const now = await readFile(file);
      expect(wellFormed(now)).toBe(true);
      expect(now.equals(bad)).toBe(false);
    }
  });
});

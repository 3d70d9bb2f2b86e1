/**
 * V8's code cache for the parts of `reqlix-mcp` compiled from strings (scripts/build-local.mjs `lazyParts`):
 * a new process otherwise parses and compiles every function of the part it runs (measured: ~8 ms of CPU of
 * a ~150 ms `reqlix-mcp trace` after 10 changed files, on the shared 2-core machine). The cache is written once per build, Node and V8, after
 * a run (so it holds the functions that run compiled), in the user's cache folder, never next to the bundle
 * (which may be read-only); Node's own compile cache covers only modules loaded from files.
 *
 * A cache file is used only when its checksum (CRC-32, which Node has from 20.15 and 22.2) matches; V8 then
 * checks its own version, flags and source, and a cache it rejects is rewritten. Without zlib.crc32, or with
 * NODE_DISABLE_COMPILE_CACHE set, parts are compiled as before and nothing is written. Any failure to read
 * or write only costs the compile.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { Script } from "node:vm";
import * as zlib from "node:zlib";

/** A part's body: CommonJS, run with these three. */
export type PartFunction = (require: NodeRequire, module: { exports: unknown }, exports: unknown) => void;

const MAGIC = 0x52514343; // "RQCC"
const HEADER = 12; // magic, CRC-32 of the payload, payload length

type Crc32 = (data: Uint8Array) => number;

/** The folder of the code cache, or undefined when it is switched off. */
export function codeCacheDir(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  if (env.REQLIX_CODE_CACHE_DIR) return env.REQLIX_CODE_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "reqlix", "code");
}

/** The file of a part's cache: the build's hash of its code, and the Node that made it. */
export function codeCacheFile(dir: string, key: string): string {
  return join(dir, `${key}-${process.version}-${process.arch}.bin`);
}

function readCache(file: string, crc32: Crc32): Buffer | undefined {
  try {
    const data = readFileSync(file);
    if (data.length < HEADER || data.readUInt32LE(0) !== MAGIC) return undefined;
    const length = data.readUInt32LE(8);
    if (length !== data.length - HEADER) return undefined;
    const payload = data.subarray(HEADER);
    return crc32(payload) === data.readUInt32LE(4) ? payload : undefined;
  } catch {
    return undefined;
  }
}

function writeCache(file: string, dir: string, payload: Buffer, crc32: Crc32): void {
  try {
    mkdirSync(dir, { recursive: true });
    const header = Buffer.alloc(HEADER);
    header.writeUInt32LE(MAGIC, 0);
    header.writeUInt32LE(crc32(payload), 4);
    header.writeUInt32LE(payload.length, 8);
    const temp = `${file}.${process.pid}-${Date.now().toString(36)}.tmp`;
    writeFileSync(temp, Buffer.concat([header, payload]));
    renameSync(temp, file);
  } catch {}
}

/**
 * Compiles a part (`code`, named `filename` in stack traces) with its code cache when there is a good one,
 * and schedules writing one at exit when there is none. `key` names the code (a hash the build computes).
 */
export function compilePart(
  code: string,
  filename: string,
  key: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): PartFunction {
  const source = `(function (require, module, exports) {${code}\n})`;
  const crc32 = (zlib as { crc32?: Crc32 }).crc32;
  const dir = crc32 ? codeCacheDir(env) : undefined;
  if (!dir || !crc32) return new Script(source, { filename }).runInThisContext() as PartFunction;
  const file = codeCacheFile(dir, key);
  const cachedData = readCache(file, crc32);
  const script = new Script(source, { filename, cachedData });
  if (!cachedData || script.cachedDataRejected) {
    // At exit the functions that ran are compiled: the cache holds them too.
    process.once("exit", () => writeCache(file, dir, script.createCachedData(), crc32));
  }
  return script.runInThisContext() as PartFunction;
}

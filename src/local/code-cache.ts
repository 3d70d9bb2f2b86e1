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

/** A part: its CommonJS code in a function of these three (wrapped so by the build, appendParts). */
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
 * The source of the part `name` (a function of `require`, `module` and `exports`), which the build appended
 * to the bundle `file` as a comment (scripts/build-local.mjs appendParts: "*\/" written "*\x01/", all ASCII,
 * no other \x01). V8 skipped the comment when it compiled the bundle; here one read of the file's bytes and
 * one string of the part's (a string of the whole file and a wrapper put around the code here cost a
 * new process ~3 ms of CPU).
 */
export function partSource(name: string, file: string): string {
  const bytes = readFileSync(file);
  const open = `/*\x01${name}\n`;
  const start = bytes.indexOf(open, 0, "latin1");
  const end = start < 0 ? -1 : bytes.indexOf(`\n${name}\x01*/`, start, "latin1");
  if (end < 0) throw new Error(`${file} lacks the code of ${name}: build it again (npm run build)`);
  return bytes.toString("latin1", start + open.length, end).replaceAll("*\x01/", "*/");
}

/**
 * Compiles a part (`source`, its function; named `filename` in stack traces) with its code cache when there is a good one,
 * and schedules writing one at exit when there is none. `key` names the code (a hash the build computes).
 */
export function compilePart(
  source: string,
  filename: string,
  key: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): PartFunction {
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

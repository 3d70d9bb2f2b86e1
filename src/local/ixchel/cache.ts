/**
 * The cache under `.ixchel/.cache/`: derived data only, rebuilt from the markdown at any time. JSON (the
 * companion stays native-free), written atomically; anything unreadable or of another version is dropped
 * and rebuilt, never fatal.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ParsedFile } from "./entity.js";
import { CACHE_FOLDER, writeFileAtomic } from "./files.js";

/** Bump when the parsed shape or the parsing rules change: old caches are then rebuilt. */
export const INDEX_CACHE_VERSION = 1;
const INDEX_FILE = "index.json";
const EMBEDDINGS_FILE = "embeddings.json";

export interface FileRecord {
  mtimeMs: number;
  size: number;
  /** sha256 of the file's bytes. */
  hash: string;
  /** When the file was last read or stat'ed (for the racy-mtime rule in sync). */
  checkedAt: number;
  parsed: ParsedFile;
}

export type Log = (message: string, fields?: Record<string, unknown>) => void;

function cacheDir(ixchelDir: string): string {
  return join(ixchelDir, CACHE_FOLDER);
}

/** Creates `.cache/` with a `.gitignore` of `*`, so the cache never reaches a commit. */
function ensureCacheDir(ixchelDir: string): string {
  const dir = cacheDir(ixchelDir);
  mkdirSync(dir, { recursive: true });
  const ignore = join(dir, ".gitignore");
  if (!existsSync(ignore)) writeFileAtomic(ignore, "*\n");
  return dir;
}

function isRecord(value: unknown): value is FileRecord {
  if (value === null || typeof value !== "object") return false;
  const r = value as Record<string, unknown>;
  const parsed = r.parsed as Record<string, unknown> | null | undefined;
  return (
    typeof r.mtimeMs === "number" &&
    typeof r.size === "number" &&
    typeof r.hash === "string" &&
    typeof r.checkedAt === "number" &&
    parsed !== null &&
    typeof parsed === "object" &&
    (parsed.type === "plain" ||
      (parsed.type === "problem" && typeof parsed.message === "string") ||
      (parsed.type === "entity" && typeof (parsed.entity as { id?: unknown } | undefined)?.id === "string"))
  );
}

/** The cached records by path, or `undefined` when there is no usable cache (missing, damaged, old). */
export function loadIndexCache(ixchelDir: string, log: Log): Map<string, FileRecord> | undefined {
  const path = join(cacheDir(ixchelDir), INDEX_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  try {
    const data = JSON.parse(text) as { version?: unknown; files?: unknown };
    if (data.version !== INDEX_CACHE_VERSION) {
      log("ixchel cache has another version; rebuilding", { path });
      return undefined;
    }
    if (data.files === null || typeof data.files !== "object") throw new Error("files is not an object");
    const files = new Map<string, FileRecord>();
    for (const [rel, record] of Object.entries(data.files as Record<string, unknown>)) {
      if (!isRecord(record)) throw new Error(`bad record for ${rel}`);
      files.set(rel, record);
    }
    return files;
  } catch (error) {
    log("ixchel cache is damaged; rebuilding from the markdown", { path, error: (error as Error).message });
    return undefined;
  }
}

/** Saves the records; a failure is logged and otherwise ignored (the cache is only an accelerator). */
export function saveIndexCache(ixchelDir: string, files: Map<string, FileRecord>, log: Log): void {
  try {
    const dir = ensureCacheDir(ixchelDir);
    const data = { version: INDEX_CACHE_VERSION, files: Object.fromEntries(files) };
    writeFileAtomic(join(dir, INDEX_FILE), JSON.stringify(data));
  } catch (error) {
    log("ixchel cache could not be written", { error: (error as Error).message });
  }
}

/** Embedding vectors by key (a hash of model and text), stored as base64 of float32 values. */
export function loadEmbeddingCache(ixchelDir: string, model: string, log: Log): Map<string, Float32Array> {
  const vectors = new Map<string, Float32Array>();
  const path = join(cacheDir(ixchelDir), EMBEDDINGS_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return vectors;
  }
  try {
    const data = JSON.parse(text) as {
      version?: unknown;
      model?: unknown;
      vectors?: Record<string, unknown>;
    };
    if (data.version !== 1 || data.model !== model || !data.vectors || typeof data.vectors !== "object") {
      return vectors;
    }
    for (const [key, value] of Object.entries(data.vectors)) {
      if (typeof value !== "string") throw new Error(`bad vector for ${key}`);
      const bytes = Buffer.from(value, "base64");
      if (bytes.length % 4 !== 0) throw new Error(`bad vector length for ${key}`);
      const copy = new Uint8Array(bytes); // aligned copy for the Float32Array view
      vectors.set(key, new Float32Array(copy.buffer, 0, copy.length / 4));
    }
    return vectors;
  } catch (error) {
    log("ixchel embeddings cache is damaged; re-embedding", { path, error: (error as Error).message });
    return new Map();
  }
}

export function saveEmbeddingCache(
  ixchelDir: string,
  model: string,
  vectors: Map<string, Float32Array>,
  log: Log,
): void {
  try {
    const dir = ensureCacheDir(ixchelDir);
    const out: Record<string, string> = {};
    for (const [key, vector] of vectors) {
      out[key] = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64");
    }
    writeFileAtomic(join(dir, EMBEDDINGS_FILE), JSON.stringify({ version: 1, model, vectors: out }));
  } catch (error) {
    log("ixchel embeddings cache could not be written", { error: (error as Error).message });
  }
}

const WRITE_STAMP_FILE = "written";

/**
 * The write stamp: a random token every companion writer replaces after changing an entity file and before
 * it acknowledges. A reader that finds the token it saw when its last sync started knows no companion has
 * written since, so it may reuse that sync; any other token (or none) means "sync now". A token, not an
 * mtime: two writes within one mtime tick would look the same.
 */
export function readWriteStamp(ixchelDir: string): string {
  try {
    return readFileSync(join(cacheDir(ixchelDir), WRITE_STAMP_FILE), "utf8");
  } catch {
    return "";
  }
}

/**
 * Replaces the write stamp. A failure is logged, not thrown: the entity file is written already, and
 * readers in other processes then only fall back to the freshness window (at most 2 s stale).
 */
export function writeWriteStamp(ixchelDir: string, log: Log): void {
  try {
    const dir = ensureCacheDir(ixchelDir);
    writeFileAtomic(join(dir, WRITE_STAMP_FILE), randomBytes(12).toString("hex"));
  } catch (error) {
    log("ixchel write stamp could not be written", { error: (error as Error).message });
  }
}

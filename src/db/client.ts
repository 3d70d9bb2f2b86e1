/**
 * Node: opens the database named by a URL (`file:`, `:memory:`, `http(s)://`, `libsql://`) and returns the
 * `Database` seam. The Worker does not import this file (it uses `databaseFromClient` from `database.ts`
 * with `@libsql/client/http`).
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { type Client, createClient } from "@libsql/client";
import { DomainError } from "../core/errors.js";
import { type Database, type DatabaseOptions, databaseFromClient } from "./database.js";

export type { Database, Db, Executor, Tx } from "./database.js";
export { databaseFromClient } from "./database.js";

export interface OpenDatabaseOptions {
  url: string;
  authToken?: string;
  /**
   * SQLite busy timeout for embedded files, in ms (default 250). The embedded client waits synchronously,
   * blocking the event loop, so it stays short; `write` retries after BUSY with an async back-off.
   */
  busyTimeoutMs?: number;
  /** Retries of a write after SQLITE_BUSY (default 8), and a hook told about each BUSY. */
  busyRetries?: number;
  onBusy?: DatabaseOptions["onBusy"];
  /** Create the folder of a `file:` URL when missing (default true). */
  createFolder?: boolean;
}

export const DEFAULT_DB_URL = "file:.data/reqlix.db";

/** Memory-mapped I/O window and page cache of an embedded database file. */
const MMAP_BYTES = 256 * 1024 * 1024;
const CACHE_KIB = 32 * 1024;

/** Normalizes `:memory:` and plain paths to libSQL URLs; rejects anything we cannot open, saying why. */
export function normalizeDbUrl(url: string): string {
  const trimmed = url.trim();
  if (trimmed === ":memory:") return "file::memory:";
  if (/^(file|https?|libsql|wss?):/i.test(trimmed)) return trimmed;
  throw DomainError.invalid(
    `REQLIX_DB_URL "${trimmed}" is not a database URL: use file:path/to/db, :memory:, http(s)://host or libsql://host.`,
    [{ field: "REQLIX_DB_URL", message: "expected file:, :memory:, http(s):// or libsql://" }],
  );
}

function filePathOf(url: string): string | undefined {
  if (!url.startsWith("file:") || url.includes(":memory:")) return undefined;
  const rest = url.slice("file:".length).split("?")[0] ?? "";
  if (rest.startsWith("//")) return rest.replace(/^\/\/(localhost)?/, "");
  return rest;
}

/**
 * Stores CACHE_KIB as the file's suggested page cache (`default_cache_size`, kept in its header), which every
 * connection opened on the file starts with, those the pool opens by itself included. Written only when it
 * differs, so an open writes nothing after the first. SQLite calls the pragma deprecated; a build without it
 * ignores it, and then only the configured connection has the larger cache. A hint only: a file that cannot
 * take the write (read-only, or locked by another writer) opens without it, and start-up's write probe says
 * what is wrong with it.
 */
async function suggestCacheSize(client: Client): Promise<void> {
  const first = async (pragma: string) => Number((await client.execute(`PRAGMA ${pragma}`)).rows[0]?.[0]);
  const pages = Math.ceil((CACHE_KIB * 1024) / (await first("page_size")));
  if ((await first("default_cache_size")) === pages) return;
  try {
    await client.execute(`PRAGMA default_cache_size = ${pages}`);
  } catch {
    // See above: the connections keep SQLite's default cache until a later open can store it.
  }
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const url = normalizeDbUrl(options.url);
  const path = filePathOf(url);
  if (path !== undefined && path !== "" && (options.createFolder ?? true)) {
    mkdirSync(dirname(path), { recursive: true });
  }
  const inMemory = url.includes(":memory:");
  const client = createClient({
    url,
    ...(options.authToken ? { authToken: options.authToken } : {}),
    timeout: options.busyTimeoutMs ?? 250,
  });
  // Per-connection settings. The embedded client keeps a pool of connections, and each new one starts with
  // SQLite's defaults (a 2 MiB cache, no mmap): these are applied at open and again after every reconnect
  // (the seam reopens the pool after SQLITE_BUSY). Connections the pool adds while a transaction holds this
  // one get the file's suggested cache (suggestCacheSize) but no mmap: the client has no hook for them
  // (docs/ARCHITECTURE.md).
  const configure = url.startsWith("file:")
    ? async (c: Client) => {
        if (!inMemory) {
          // Search at a million rows reads FTS5 doclists of many pages: mapping the file and a larger page
          // cache cut its p50 by 15–20% (bench/search-1m.ts). mmap uses the OS page cache, not the heap.
          await c.execute(`PRAGMA mmap_size = ${MMAP_BYTES}`);
          await c.execute(`PRAGMA cache_size = -${CACHE_KIB}`);
        }
        // Foreign keys keep workspace-scoped rows consistent.
        await c.execute("PRAGMA foreign_keys = ON");
      }
    : undefined;
  // WAL lets reads run beside the one writer (a setting of the file: once).
  if (url.startsWith("file:") && !inMemory) {
    await client.execute("PRAGMA journal_mode = WAL");
    await suggestCacheSize(client);
  }
  await configure?.(client);
  return databaseFromClient(client, {
    serializeWrites: true,
    serializeReads: inMemory,
    ...(configure ? { configure } : {}),
    ...(options.busyRetries !== undefined ? { busyRetries: options.busyRetries } : {}),
    ...(options.onBusy ? { onBusy: options.onBusy } : {}),
  });
}

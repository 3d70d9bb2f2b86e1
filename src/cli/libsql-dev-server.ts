/**
 * Local libSQL HTTP endpoint for development: Hrana-over-HTTP v2 (`POST /v2/pipeline`) over an embedded
 * libSQL file, so `wrangler dev` (whose Worker can only reach a database over HTTP) runs offline. Production
 * points LIBSQL_URL at Turso or a self-hosted sqld instead; this server is never deployed.
 *
 * Streams are tied together by batons: each response carries a new, random baton for the stream (or null
 * once it is closed), a baton is good for one request, and a stream idle for longer than `streamIdleMs` is
 * closed, which rolls back a transaction its client abandoned.
 *
 *   library: startLibsqlDevServer({ file, port: 0 }) → { url, close }
 *   CLI:     npx tsx src/cli/libsql-dev-server.ts --file .data/reqlix-dev.db --port 8080
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { mkdirSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "libsql";
import {
  describeIssues,
  type HranaError,
  HranaProtocolError,
  pipelineBodySchema,
  type StreamResult,
  streamRequestSchema,
  toJson,
} from "./libsql-dev-protocol.js";
import { DevStream, toHranaError } from "./libsql-dev-stream.js";

export interface LibsqlDevServerOptions {
  /** Database file, created if missing (folder too). Each stream needs its own connection, so no `:memory:`. */
  file: string;
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** When set, every request must carry `Authorization: Bearer <authToken>`. */
  authToken?: string;
  /** A stream with no request for this long is closed (its open transaction rolled back). Default 15 s. */
  streamIdleMs?: number;
  /** How long a statement that meets SQLITE_BUSY is retried (async, never blocking). Default 5 s. */
  busyWaitMs?: number;
  /** Largest accepted request body. Default 16 MiB. */
  maxBodyBytes?: number;
  /** Receives one line per pipeline request (stream, what ran, how long): for debugging. */
  log?: (line: string) => void;
}

export interface LibsqlDevServer {
  /** `http://host:port`, for `createClient({ url })` from `@libsql/client/web`. */
  url: string;
  port: number;
  /** Number of open streams (for tests and diagnostics). */
  openStreams(): number;
  close(): Promise<void>;
}

interface Entry {
  stream: DevStream;
  timer: NodeJS.Timeout;
}

const JSON_TYPE = "application/json";
const MAX_IDLE_CONNECTIONS = 8;
/** How long an idle keep-alive HTTP connection stays open (see below why it is long). */
const IDLE_CONNECTION_MS = 65_000;

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

function openConnection(file: string): () => Database.Database {
  if (file === ":memory:" || file.startsWith("file::memory:")) {
    throw new Error(
      "The local libSQL endpoint needs a database file (each stream has its own connection, and an in-memory database exists per connection).",
    );
  }
  const path = resolve(file);
  mkdirSync(dirname(path), { recursive: true });
  // timeout 0: no blocking busy wait (see libsql-dev-stream.ts for why and what happens instead).
  const options = { timeout: 0 } as Database.Options;
  let first = true;
  return () => {
    const db = new Database(path, options);
    if (first) {
      // WAL lets readers run beside the one writer, so fewer statements meet SQLITE_BUSY at all.
      db.exec("PRAGMA journal_mode=WAL");
      first = false;
    }
    return db;
  };
}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit)
      throw new HttpFailure(413, `Request body is larger than ${limit} bytes.`, "BODY_TOO_LARGE");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function send(res: ServerResponse, status: number, body: string, type = JSON_TYPE): void {
  // Exactly `application/json`: the hrana client parses an error body only for that content type.
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function sendError(res: ServerResponse, status: number, error: HranaError): void {
  send(res, status, toJson(error));
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header?.startsWith("Bearer ") ? header.slice(7) : "");
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `execute BEGIN IMMEDIATE, batch[4], close` — the first words of each statement, never arguments. */
function describeRequests(requests: unknown[]): string {
  const words = (sql: unknown) =>
    typeof sql === "string" ? sql.trim().split(/\s+/).slice(0, 2).join(" ") : "#";
  return requests
    .map((r) => {
      const req = r as {
        type?: string;
        stmt?: { sql?: unknown };
        batch?: { steps?: { stmt?: { sql?: unknown } }[] };
      };
      if (req.type === "execute") return `execute ${words(req.stmt?.sql)}`;
      if (req.type === "batch")
        return `batch[${(req.batch?.steps ?? []).map((s) => words(s.stmt?.sql)).join("; ")}]`;
      return String(req.type);
    })
    .join(", ");
}

export async function startLibsqlDevServer(options: LibsqlDevServerOptions): Promise<LibsqlDevServer> {
  const streamIdleMs = options.streamIdleMs ?? 15_000;
  const busyWaitMs = options.busyWaitMs ?? 5_000;
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const host = options.host ?? "127.0.0.1";
  const connect = openConnection(options.file);
  // Fail at start, not on the first request, if the file cannot be opened.
  const idle: Database.Database[] = [connect()];
  // Opening a connection costs more than a point read, so clean connections of closed streams are kept.
  const open = () => idle.pop() ?? connect();
  const release = (db: Database.Database) => {
    if (idle.length >= MAX_IDLE_CONNECTIONS) {
      db.close();
      return;
    }
    // The next stream must not inherit a stream's setting (@libsql/client's migrate() turns this off).
    db.exec("PRAGMA foreign_keys=ON");
    idle.push(db);
  };

  const streams = new Map<string, Entry>();

  const park = (stream: DevStream): string => {
    const baton = randomBytes(24).toString("base64url");
    const timer = setTimeout(() => {
      streams.delete(baton);
      stream.close();
    }, streamIdleMs);
    timer.unref();
    streams.set(baton, { stream, timer });
    return baton;
  };

  const take = (baton: string): DevStream => {
    const entry = streams.get(baton);
    if (!entry) {
      throw new HttpFailure(
        400,
        "Unknown or expired baton: the stream was closed, expired after inactivity, or the baton was already used. Open a new stream (baton null).",
        "STREAM_EXPIRED",
      );
    }
    streams.delete(baton);
    clearTimeout(entry.timer);
    return entry.stream;
  };

  const pipeline = async (body: string): Promise<string> => {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new HttpFailure(400, "The request body is not JSON.", "HRANA_PROTO_ERROR");
    }
    const parsed = pipelineBodySchema.safeParse(json);
    if (!parsed.success) {
      throw new HttpFailure(
        400,
        `Bad pipeline request: ${describeIssues(parsed.error, "body")}`,
        "HRANA_PROTO_ERROR",
      );
    }
    const { baton, requests } = parsed.data;
    const started = Date.now();
    const stream = baton ? take(baton) : new DevStream({ open, release, busyWaitMs });
    const results: StreamResult[] = [];
    try {
      for (const [index, raw] of requests.entries()) {
        const request = streamRequestSchema.safeParse(raw);
        if (!request.success) {
          const message = `Bad stream request: ${describeIssues(request.error, `requests[${index}]`)}`;
          results.push({ type: "error", error: { message, code: "HRANA_PROTO_ERROR" } });
          continue;
        }
        try {
          results.push({ type: "ok", response: await stream.handle(request.data) });
        } catch (error) {
          results.push({ type: "error", error: toHranaError(error) });
        }
      }
    } catch (error) {
      stream.close();
      throw error;
    }
    const next = stream.closed ? null : park(stream);
    options.log?.(
      `stream ${stream.id} ${baton ? "continued" : "opened"}: ${describeRequests(requests)} → ${results.map((r) => (r.type === "ok" ? "ok" : `error ${r.error.code}`)).join(", ")} in ${Date.now() - started} ms${next ? "" : ", closed"}${stream.inTransaction ? ", in transaction" : ""}`,
    );
    return toJson({ baton: next, base_url: null, results });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname.replace(/\/+$/, "") || "/";
    if (options.authToken !== undefined && !tokenMatches(req.headers.authorization, options.authToken)) {
      sendError(res, 401, {
        message: "Missing or wrong auth token for the local libSQL endpoint.",
        code: "UNAUTHORIZED",
      });
      return;
    }
    if (req.method === "GET" && (path === "/v2" || path === "/health" || path === "/")) {
      send(res, 200, toJson({ status: "ok", protocol: "hrana-over-http v2 (json)" }));
      return;
    }
    if (path === "/v2/pipeline") {
      if (req.method !== "POST") {
        sendError(res, 405, { message: "Use POST for /v2/pipeline.", code: "METHOD_NOT_ALLOWED" });
        return;
      }
      send(res, 200, await pipeline(await readBody(req, maxBodyBytes)));
      return;
    }
    // v3 (and v3-protobuf, cursors) answer 404, so a client that probes them falls back to v2.
    sendError(res, 404, {
      message: `No such endpoint: ${req.method} ${path}. This server speaks Hrana over HTTP v2.`,
      code: "NOT_FOUND",
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof HttpFailure)
        sendError(res, error.status, { message: error.message, code: error.code });
      else if (error instanceof HranaProtocolError) sendError(res, 400, toHranaError(error));
      else sendError(res, 500, toHranaError(error));
    });
  });

  // Keep idle connections longer than any client's pool does (workerd's, like Node's, drops them after
  // about 5 s), so it is always the client that closes one: with equal timeouts a request sent on a
  // pooled connection can cross the server's FIN on the wire and fail as "Network connection lost",
  // which the Worker reports as an unreachable database.
  server.keepAliveTimeout = IDLE_CONNECTION_MS;
  server.headersTimeout = IDLE_CONNECTION_MS + 1_000;

  if (options.log) {
    const log = options.log;
    let nextConnection = 1;
    server.on("connection", (socket) => {
      const id = nextConnection++;
      const opened = Date.now();
      let last = opened;
      log(`connection ${id} opened from port ${socket.remotePort}`);
      socket.on("data", () => {
        last = Date.now();
      });
      socket.on("close", (hadError) => {
        log(
          `connection ${id} closed${hadError ? " with an error" : ""} after ${Date.now() - opened} ms, ${Date.now() - last} ms after its last data`,
        );
      });
    });
    server.on("clientError", (error, socket) => {
      log(`client error: ${(error as Error).message}`);
      // What Node does without a listener: answer 400 when it still can, else drop the socket.
      if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
      else socket.destroy();
    });
  }

  await new Promise<void>((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolvePromise();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    openStreams: () => streams.size,
    async close() {
      for (const { stream, timer } of streams.values()) {
        clearTimeout(timer);
        stream.close();
      }
      streams.clear();
      for (const db of idle.splice(0)) db.close();
      await new Promise<void>((resolvePromise) => {
        server.close(() => resolvePromise());
        server.closeAllConnections();
      });
    },
  };
}

function parseArgs(argv: string[]): LibsqlDevServerOptions {
  const options: LibsqlDevServerOptions = {
    file: process.env.REQLIX_DEV_DB_FILE || ".data/reqlix-dev.db",
    port: Number(process.env.LIBSQL_DEV_PORT || 8080),
    host: "127.0.0.1",
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    const need = (): string => {
      if (value === undefined || value.startsWith("--")) throw new Error(`${flag} needs a value.`);
      i++;
      return value;
    };
    if (flag === "--file") options.file = need();
    else if (flag === "--port") options.port = Number(need());
    else if (flag === "--host") options.host = need();
    else if (flag === "--auth-token") options.authToken = need();
    else if (flag === "--verbose") options.log = (line) => console.log(line);
    else if (flag === "--help" || flag === "-h") {
      console.log(
        "Usage: libsql-dev-server [--file .data/reqlix-dev.db] [--port 8080] [--host 127.0.0.1] [--auth-token T] [--verbose]\n" +
          "Env: REQLIX_DEV_DB_FILE (the file), LIBSQL_DEV_PORT (the port). Serves one file to local tools only.",
      );
      process.exit(0);
    } else throw new Error(`Unknown option ${flag}. Run with --help for the options.`);
  }
  if (!Number.isInteger(options.port) || (options.port ?? 0) < 0 || (options.port ?? 0) > 65535) {
    throw new Error(
      `The port must be an integer from 0 to 65535 (0 picks a free one), got ${String(options.port)}.`,
    );
  }
  return options;
}

async function main(): Promise<void> {
  let options: LibsqlDevServerOptions;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
  const server = await startLibsqlDevServer(options);
  console.log(`libSQL dev endpoint (Hrana over HTTP v2) on ${server.url}, file ${options.file}`);
  const loopback = /^(127\.|::1$|localhost$)/.test(options.host ?? "127.0.0.1");
  if (!loopback && options.authToken === undefined) {
    console.warn(
      `Warning: ${options.host} is reachable from other machines and no --auth-token is set: anyone there can read and write the database.`,
    );
  }
  const stop = () => {
    server.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}

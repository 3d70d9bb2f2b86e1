/**
 * The Node server's connection limits (issue item 4), on the real process: a client that sends its
 * headers or its body too slowly is cut off within the configured time; connections beyond
 * REQLIX_MAX_CONNECTIONS are refused while the open ones keep working; bad values stop the start.
 */
import { connect, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import {
  cleanupNodeProcesses,
  ownerToken,
  type RunningServer,
  spawnNode,
  startNode,
  tempDir,
} from "../helpers/node-process.js";

afterAll(() => cleanupNodeProcesses());

/** A raw TCP connection that collects what the server sends and notes when it closes. */
interface Raw {
  socket: Socket;
  received: () => string;
  closed: Promise<number>;
}

async function open(server: RunningServer): Promise<Raw> {
  const socket = connect(server.port, "127.0.0.1");
  const chunks: Buffer[] = [];
  socket.on("data", (b: Buffer) => chunks.push(b));
  socket.on("error", () => {}); // a reset counts as closed
  const closed = new Promise<number>((resolve) => socket.on("close", () => resolve(performance.now())));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return { socket, received: () => Buffer.concat(chunks).toString(), closed };
}

/** Sends one keep-alive GET /healthz on `raw` and waits for the whole answer; returns its status. */
async function healthOver(raw: Raw): Promise<number> {
  const before = raw.received().length;
  raw.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n");
  const deadline = Date.now() + 10_000;
  for (;;) {
    const text = raw.received().slice(before);
    const head = text.indexOf("\r\n\r\n");
    const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? Number.NaN);
    if (head >= 0 && text.length >= head + 4 + length) return Number(text.slice(9, 12));
    if (raw.socket.destroyed || Date.now() > deadline) return 0;
    await new Promise((r) => setTimeout(r, 10));
  }
}

const within = (p: Promise<number>, ms: number) =>
  Promise.race([p, new Promise<"still open">((r) => setTimeout(() => r("still open"), ms))]);

describe("Node server limits", () => {
  it("cuts off a client that trickles its headers or its body", async () => {
    const server = await startNode({
      REQLIX_DB_URL: `file:${tempDir()}/reqlix.db`,
      REQLIX_HEADERS_TIMEOUT_MS: "1000",
      REQLIX_REQUEST_TIMEOUT_MS: "2000",
    });
    const token = ownerToken(server);

    // Headers complete at once, then an authenticated body one byte every 200 ms, forever.
    const body = await open(server);
    const started = performance.now();
    body.socket.write(
      `POST /api/v1/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
        "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{",
    );
    const trickle = setInterval(() => body.socket.writable && body.socket.write(" "), 200);
    // Headers never finished.
    const headers = await open(server);
    headers.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const headerTrickle = setInterval(
      () => headers.socket.writable && headers.socket.write("X-Slow: 1\r\n"),
      200,
    );
    try {
      const bodyClosed = await within(body.closed, 6_000);
      const headersClosed = await within(headers.closed, 6_000);
      expect(bodyClosed).not.toBe("still open");
      expect(headersClosed).not.toBe("still open");
      // Cut off after the configured time (plus the server's 1 s check interval), not minutes later.
      expect((bodyClosed as number) - started).toBeLessThan(2_000 + 1_500);
      expect((headersClosed as number) - started).toBeLessThan(1_000 + 1_500);
      expect(body.received()).toMatch(/^$|^HTTP\/1\.1 408/);
      expect(headers.received()).toMatch(/^$|^HTTP\/1\.1 408/);
    } finally {
      clearInterval(trickle);
      clearInterval(headerTrickle);
    }
    server.proc.kill("SIGTERM");
    expect(await server.exit).toBe(0);
  });

  it("refuses connections beyond REQLIX_MAX_CONNECTIONS while the open ones keep working", async () => {
    const server = await startNode({
      REQLIX_DB_URL: `file:${tempDir()}/reqlix.db`,
      REQLIX_MAX_CONNECTIONS: "2",
    });
    const a = await open(server);
    const b = await open(server);
    expect(await healthOver(a)).toBe(200);
    expect(await healthOver(b)).toBe(200);

    const c = await open(server).catch(() => undefined); // refused at connect or closed right after
    if (c) {
      expect(await healthOver(c)).toBe(0);
      expect(await within(c.closed, 5_000)).not.toBe("still open");
    }
    expect(await healthOver(a)).toBe(200);
    expect(await healthOver(b)).toBe(200);

    // Once one closes, a new connection is served again.
    a.socket.end();
    await a.closed;
    await new Promise((r) => setTimeout(r, 100));
    const d = await open(server);
    expect(await healthOver(d)).toBe(200);
    for (const r of [b, d]) r.socket.destroy();
    server.proc.kill("SIGTERM");
    expect(await server.exit).toBe(0);
  });

  it("refuses bad limit values with exit 2 naming the variable", async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ REQLIX_MAX_CONNECTIONS: "lots" }, /REQLIX_MAX_CONNECTIONS/],
      [{ REQLIX_REQUEST_TIMEOUT_MS: "-5" }, /REQLIX_REQUEST_TIMEOUT_MS/],
      [{ REQLIX_HEADERS_TIMEOUT_MS: "0.5" }, /REQLIX_HEADERS_TIMEOUT_MS/],
      [{ REQLIX_KEEP_ALIVE_TIMEOUT_MS: "soon" }, /REQLIX_KEEP_ALIVE_TIMEOUT_MS/],
      [{ REQLIX_HEADERS_TIMEOUT_MS: "9000", REQLIX_REQUEST_TIMEOUT_MS: "5000" }, /REQLIX_HEADERS_TIMEOUT_MS/],
    ];
    const runs = cases.map(([env]) => spawnNode({ REQLIX_DB_URL: `file:${tempDir()}/reqlix.db`, ...env }));
    for (const [i, p] of runs.entries()) {
      expect(await p.exit).toBe(2);
      expect(p.stderr().trimEnd().split("\n")).toHaveLength(1);
      expect(p.stderr()).toMatch((cases[i] as [unknown, RegExp])[1]);
      expect(p.stdout()).not.toMatch(/rqx_/);
    }
  });
});

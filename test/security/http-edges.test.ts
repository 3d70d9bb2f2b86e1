/**
 * Edge behaviour seen on a raw socket, where HTTP clients with connection pools live: what the server
 * promises in `Connection:` must hold.
 */
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HostedServer, startHosted } from "../helpers/hosted.js";

let hosted: HostedServer;

beforeAll(async () => {
  hosted = await startHosted();
}, 60_000);

afterAll(async () => {
  await hosted?.close();
});

/** Writes `request` and resolves with everything read until `done(text)` or the socket closes. */
function exchange(
  socket: Socket,
  request: string | Buffer,
  done: (text: string) => boolean,
  timeoutMs = 5_000,
): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    let text = "";
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("close", onClose);
      resolve({ text, closed });
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (done(text)) finish(false);
    };
    const onClose = () => finish(true);
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on("data", onData);
    socket.on("close", onClose);
    socket.write(request);
  });
}

const complete = (text: string) => {
  const end = text.indexOf("\r\n\r\n");
  if (end === -1) return false;
  const length = /content-length:\s*(\d+)/i.exec(text.slice(0, end));
  return length !== null && text.length >= end + 4 + Number(length[1]);
};

function ping(token: string): string {
  const body = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
  return `POST /api/v1/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: Bearer ${token}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
}

describe("keep-alive promises", () => {
  it("a normal answer keeps the connection usable for the next request", async () => {
    const socket = connect(hosted.port, "127.0.0.1");
    try {
      const first = await exchange(socket, ping(hosted.ownerToken), complete);
      expect(first.text).toMatch(/^HTTP\/1\.1 200/);
      const second = await exchange(socket, ping(hosted.ownerToken), complete);
      expect(second.text).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      socket.destroy();
    }
  });

  // Regression: the 413 used to say `Connection: keep-alive` and then drop the socket, so a pooled client's
  // next request on it failed ("other side closed"). src/http/body-limit.ts now answers a declared
  // Content-Length from the header, and the connection stays usable.
  it("after a 413, either `Connection: close` or the connection still serves the next request", async () => {
    const socket = connect(hosted.port, "127.0.0.1");
    try {
      const big = "y".repeat(1_100_000);
      const head = `POST /api/v1/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n`;
      const refused = await exchange(socket, Buffer.from(head + big), complete);
      expect(refused.text).toMatch(/^HTTP\/1\.1 413/);
      if (/\r\nconnection:\s*close/i.test(refused.text)) return;
      const next = await exchange(socket, ping(hosted.ownerToken), complete);
      expect(next.closed, "the server closed a connection it had promised to keep alive").toBe(false);
      expect(next.text).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      socket.destroy();
    }
  });
});

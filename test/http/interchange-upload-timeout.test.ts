/**
 * An import's upload is bound by REQLIX_REQUEST_TIMEOUT_MS like any request body (the slow-client guard):
 * the body is read as the parser consumes it, and the whole file must arrive in time. An upload cut off by
 * the timeout is answered 408 and writes nothing — the import applies only after the whole file was read.
 * (A 100 MB file needs a larger timeout: README, "Export and import API".)
 */
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupNodeProcesses, ownerToken, startNode, tempDir } from "../helpers/node-process.js";

afterAll(() => cleanupNodeProcesses());

const FILE = readFileSync(join(import.meta.dirname, "../fixtures/reqif/strictdoc-two-documents.reqif"));

describe("import upload and the request timeout", () => {
  it("an upload that does not arrive within the timeout gets 408 and writes nothing", async () => {
    const server = await startNode({
      REQLIX_DB_URL: `file:${tempDir()}/reqlix.db`,
      REQLIX_HEADERS_TIMEOUT_MS: "1000",
      REQLIX_REQUEST_TIMEOUT_MS: "2000",
    });
    const token = ownerToken(server);
    const socket = connect(server.port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (b: Buffer) => chunks.push(b));
    socket.on("error", () => {});
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    // Most of the file at once, then the rest a byte every 200 ms: it would take minutes to arrive.
    socket.write(
      `POST /api/v1/import?format=reqif&dry_run=false HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/xml\r\nContent-Length: ${FILE.length}\r\n\r\n`,
    );
    const cut = FILE.length - 2000;
    socket.write(FILE.subarray(0, cut));
    let sent = cut;
    const trickle = setInterval(() => {
      if (socket.writable && sent < FILE.length) socket.write(FILE.subarray(sent, ++sent));
    }, 200);
    await Promise.race([closed, new Promise((r) => setTimeout(r, 15_000))]);
    clearInterval(trickle);
    expect(Buffer.concat(chunks).toString()).toMatch(/^HTTP\/1\.1 408/);

    // Nothing was written: the whole file, sent at once, still creates everything (a dry run says so).
    const dry = await fetch(`${server.url}/api/v1/import?format=reqif`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/xml" },
      body: FILE,
    });
    const plan = (await dry.json()) as { counts: { create: number; update: number; unchanged: number } };
    expect(dry.status).toBe(200);
    expect(plan.counts.create).toBeGreaterThan(0);
    expect(plan.counts.unchanged).toBe(0);
    expect(plan.counts.update).toBe(0);
  }, 60_000);
});

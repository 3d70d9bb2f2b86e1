/**
 * The faces' request bodies over real Node HTTP (src/http/request-text.ts): a body already buffered when
 * the route runs is taken in one read, anything else (chunked, still arriving, pipelined behind another
 * request) is read as it streams, and both give the same text: UTF-8 decoded, a leading BOM dropped.
 */
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../helpers/app.js";
import { MCP_ACCEPT } from "../../helpers/hosted.js";

let t: TestApp;
let server: ServerType;
let port: number;

beforeAll(async () => {
  t = await createTestApp();
  server = serve({ fetch: t.app.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once("listening", resolve)));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
});

const createEpic = (title: string, id = 1) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "create_epic", arguments: { title, description: "Body read over Node HTTP." } },
  });

/** Raw HTTP/1.1 over one socket: `parts` are written in order, `pauseMs` apart. Resolves with what came back. */
function exchange(parts: (string | Buffer)[], pauseMs = 0, expectResponses = 1): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("utf8");
      const answers = received.split("HTTP/1.1 ").length - 1;
      if (answers >= expectResponses && /\r\n\r\n[\s\S]*\}\s*$/.test(received)) socket.end();
    });
    socket.on("end", () => resolve(received));
    socket.on("error", reject);
    socket.on("connect", async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
        socket.write(part);
      }
    });
  });
}

function head(path: string, headers: Record<string, string>): string {
  const lines = [`POST ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`];
  for (const [k, v] of Object.entries({
    authorization: `Bearer ${t.ownerToken}`,
    "content-type": "application/json",
    ...headers,
  }))
    lines.push(`${k}: ${v}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

/** The JSON bodies of the responses in a raw HTTP exchange (content-length framed). */
function bodies(raw: string): { status: number; body: unknown }[] {
  const out: { status: number; body: unknown }[] = [];
  let rest = Buffer.from(raw, "utf8");
  while (rest.length > 0) {
    const end = rest.indexOf("\r\n\r\n");
    if (end === -1) break;
    const headText = rest.subarray(0, end).toString("utf8");
    const status = Number(/^HTTP\/1\.1 (\d+)/.exec(headText)?.[1]);
    const length = Number(/content-length: (\d+)/i.exec(headText)?.[1] ?? 0);
    const body = rest.subarray(end + 4, end + 4 + length).toString("utf8");
    out.push({ status, body: body === "" ? null : JSON.parse(body) });
    rest = rest.subarray(end + 4 + length);
  }
  return out;
}

const titleOf = (answer: { body: unknown }) =>
  (answer.body as { result?: { structuredContent?: { title?: string } } }).result?.structuredContent?.title;

describe.each(["/api/v1/mcp", "/mcp"])("request bodies on %s over Node HTTP", (path) => {
  const extra: Record<string, string> = path === "/mcp" ? { accept: MCP_ACCEPT } : {};
  let n = 0;
  const unique = (title: string) => `${title} ${path} ${++n}`;
  /** The request line and headers for a body of declared length. */
  const declared = (body: Buffer) =>
    Buffer.from(head(path, { ...extra, "content-length": String(body.length) }));
  /** The one answer in `raw` created the epic titled `title`. */
  const expectCreated = (raw: string, title: string) => {
    const [answer] = bodies(raw);
    expect(answer?.status).toBe(200);
    expect(titleOf(answer as { body: unknown })).toBe(title);
  };

  it("a body sent with its headers: UTF-8 text as sent", async () => {
    const title = unique("Zahlung – Ärger 🚀");
    const body = Buffer.from(createEpic(title), "utf8");
    const raw = await exchange([Buffer.concat([declared(body), body])]);
    expectCreated(raw, title);
  });

  it("a leading UTF-8 BOM is dropped, as the streaming read drops it", async () => {
    const title = unique("With a BOM");
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(createEpic(title), "utf8")]);
    const raw = await exchange([Buffer.concat([declared(body), body])]);
    expectCreated(raw, title);
  });

  it("a body still arriving when the route runs (split mid-character) is waited for", async () => {
    const title = unique("Geteilt ü");
    const body = Buffer.from(createEpic(title), "utf8");
    const cut = body.indexOf(Buffer.from("ü", "utf8")) + 1; // inside the two bytes of ü
    const raw = await exchange(
      [Buffer.concat([declared(body), body.subarray(0, cut)]), body.subarray(cut)],
      50,
    );
    expectCreated(raw, title);
  });

  it("a chunked body (no declared length) is read as it streams", async () => {
    const title = unique("Chunked");
    const body = Buffer.from(createEpic(title), "utf8");
    const half = Math.floor(body.length / 2);
    const chunk = (b: Buffer) =>
      Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from("\r\n")]);
    const raw = await exchange(
      [
        Buffer.concat([
          Buffer.from(head(path, { ...extra, "transfer-encoding": "chunked" })),
          chunk(body.subarray(0, half)),
        ]),
        Buffer.concat([chunk(body.subarray(half)), Buffer.from("0\r\n\r\n")]),
      ],
      30,
    );
    expectCreated(raw, title);
  });

  it("two requests pipelined in one packet each get their own body", async () => {
    const [first, second] = [unique("Erster"), unique("Zweiter")];
    const a = Buffer.from(createEpic(first, 1), "utf8");
    const b = Buffer.from(createEpic(second, 2), "utf8");
    const raw = await exchange([Buffer.concat([declared(a), a, declared(b), b])], 0, 2);
    const answers = bodies(raw);
    expect(answers.map((x) => x.status)).toEqual([200, 200]);
    expect(answers.map(titleOf)).toEqual([first, second]);
  });

  it("a body that is not JSON is still refused as a parse error", async () => {
    const body = Buffer.from("{not json", "utf8");
    const raw = await exchange([Buffer.concat([declared(body), body])]);
    const [answer] = bodies(raw);
    expect(answer?.status).toBe(400);
    expect(answer?.body).toMatchObject({ error: { code: -32700 } });
  });
});

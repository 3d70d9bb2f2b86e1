/**
 * Edges of the app: /healthz (200, and 503 when the database cannot be reached), X-Request-Id on every
 * response, 413 over 1 MiB, Origin/Host checks on the MCP faces (DNS rebinding), JSON 404, and the
 * middleware order (body limit and origin check answer before auth).
 */
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { openDatabase } from "../../src/db/client.js";
import { createJsonLogger } from "../../src/http/logger.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ allowedOrigins: ["https://app.example.com"] });
});
afterAll(async () => {
  await t.close();
});

const PING = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
const rpc = (headers: Record<string, string>, body: BodyInit = PING, app = t.app) =>
  app.request("/api/v1/mcp", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body,
  });

/** A port with nothing listening (bound, then released). */
async function deadPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe("/healthz", () => {
  it("200 {status: ok, version} without auth", async () => {
    const res = await t.app.request("/healthz");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", version: "0.0.0-test" });
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("503 when the database is unreachable", async () => {
    const database = await openDatabase({ url: `http://127.0.0.1:${await deadPort()}` });
    const logs: string[] = [];
    const app = createApp({
      database,
      logger: createJsonLogger({ write: (l) => logs.push(l) }),
      version: "9.9.9",
    });
    const res = await app.request("/healthz");
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ status: "unavailable", version: "9.9.9" });
    expect(logs.some((l) => l.includes("database unreachable"))).toBe(true);
    await database.close();
  });

  it("503 when the database has been closed", async () => {
    const other = await createTestApp();
    await other.database.close();
    expect((await other.app.request("/healthz")).status).toBe(503);
    await other.close();
  });
});

describe("errors", () => {
  it("a database that went away is 503 with the request id, never internals", async () => {
    const other = await createTestApp();
    await other.database.close();
    const res = await other.app.request("/api/v1/admin/tokens", {
      headers: { Authorization: `Bearer ${other.ownerToken}` },
    });
    expect(res.status).toBe(503);
    const id = res.headers.get("x-request-id");
    const body = (await res.json()) as { error: { code: string; message: string; correlation_id: string } };
    expect(body.error.code).toBe("unavailable");
    expect(body.error.message).toContain(`request id ${id}`);
    expect(body.error.correlation_id).toBe(id);
    expect(JSON.stringify(body)).not.toMatch(/CLIENT_CLOSED|libsql|\bat /i);
    const rpc = await other.app.request("/api/v1/mcp", {
      method: "POST",
      headers: { Authorization: `Bearer ${other.ownerToken}`, "Content-Type": "application/json" },
      body: PING,
    });
    expect(rpc.status).toBe(503);
    const rpcBody = (await rpc.json()) as {
      jsonrpc: string;
      error: { code: number; data: { correlation_id: string } };
    };
    expect(rpcBody.jsonrpc).toBe("2.0");
    expect(rpcBody.error.code).toBe(-32603);
    expect(rpcBody.error.data.correlation_id).toBe(rpc.headers.get("x-request-id"));
    expect(other.logs.some((l) => l.includes('"msg":"database unreachable"'))).toBe(true);
    await other.close();
  });

  it("an unexpected error is a 500 'Internal error' with the request id; details only in the log", async () => {
    const brokenLogs: string[] = [];
    const broken = createApp({
      database: t.database,
      logger: createJsonLogger({ write: (l) => brokenLogs.push(l) }),
      version: "x",
    });
    broken.get("/boom", () => {
      throw new Error("secret detail: SELECT * FROM tokens");
    });
    const res = await broken.request("/boom");
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: "internal" });
    expect(body.error.message).toBe(`Internal error (request id ${res.headers.get("x-request-id")}).`);
    expect(JSON.stringify(body)).not.toContain("secret detail");
    expect(brokenLogs.some((l) => l.includes("secret detail"))).toBe(true);
  });
});

describe("X-Request-Id", () => {
  it("is on every response, success or error, and a caller's plain id is kept", async () => {
    const responses = [
      await t.app.request("/healthz"),
      await t.app.request("/nowhere"),
      await rpc({}),
      await rpc({ Authorization: `Bearer ${t.ownerToken}` }),
      await rpc({ Authorization: `Bearer ${t.ownerToken}` }, "{not json"),
    ];
    const ids = responses.map((r) => r.headers.get("x-request-id"));
    expect(ids.every((id) => typeof id === "string" && id.length >= 8)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const kept = await t.app.request("/healthz", { headers: { "X-Request-Id": "client-abc-123" } });
    expect(kept.headers.get("x-request-id")).toBe("client-abc-123");
    const replaced = await t.app.request("/healthz", { headers: { "X-Request-Id": "bad id\twith spaces" } });
    expect(replaced.headers.get("x-request-id")).not.toBe("bad id\twith spaces");
  });

  it("unknown routes are a JSON 404", async () => {
    const res = await t.app.request("/api/v1/nothing");
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });
});

describe("body limit", () => {
  const big = "x".repeat(1024 * 1024 + 1);

  it("413 over 1 MiB, before auth, on every path", async () => {
    const noAuth = await rpc({}, big);
    expect(noAuth.status).toBe(413);
    expect(noAuth.headers.get("x-request-id")).toBeTruthy();
    const admin = await t.app.request("/api/v1/admin/workspaces", {
      method: "POST",
      headers: { Authorization: `Bearer ${t.ownerToken}`, "Content-Type": "application/json" },
      body: big,
    });
    expect(admin.status).toBe(413);
  });

  it("413 for a streamed body without Content-Length", async () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 20) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    const res = await t.app.request("/api/v1/mcp", {
      method: "POST",
      headers: { Authorization: `Bearer ${t.ownerToken}`, "Content-Type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
  });

  it("exactly 1 MiB is accepted", async () => {
    const padded = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { pad: "" } });
    const body = padded.replace('"pad":""', `"pad":"${"y".repeat(1024 * 1024 - padded.length)}"`);
    expect(new TextEncoder().encode(body).length).toBe(1024 * 1024);
    const res = await rpc({ Authorization: `Bearer ${t.ownerToken}` }, body);
    expect(res.status).toBe(200);
  });
});

describe("Origin and Host checks on the MCP faces", () => {
  const auth = () => ({ Authorization: `Bearer ${t.ownerToken}` });

  it("a foreign Origin is 403 on /mcp and /api/v1/mcp, even before auth", async () => {
    for (const path of ["/mcp", "/api/v1/mcp"]) {
      for (const headers of [
        { Origin: "https://evil.example" },
        { Origin: "https://evil.example", ...auth() },
      ]) {
        const res = await t.app.request(path, {
          method: "POST",
          headers: {
            ...headers,
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
          },
          body: PING,
        });
        expect(res.status).toBe(403);
        const body = (await res.json()) as { error: { code: number; message: string } };
        expect(body.error.code).toBe(-32003);
        expect(body.error.message).toMatch(/Origin https:\/\/evil\.example is not allowed/);
      }
    }
    expect((await rpc({ Origin: "null", ...auth() })).status).toBe(403);
    // A look-alike of a local name is still foreign.
    expect((await rpc({ Origin: "http://localhost.evil.example", ...auth() })).status).toBe(403);
  });

  it("localhost origins and configured origins are allowed; no Origin is allowed", async () => {
    for (const origin of [
      "http://localhost:3000",
      "http://127.0.0.1:8787",
      "http://[::1]:5173",
      "https://app.example.com",
    ]) {
      expect((await rpc({ Origin: origin, ...auth() })).status).toBe(200);
    }
    expect((await rpc(auth())).status).toBe(200);
  });

  it("the admin API and /healthz are not subject to the Origin check", async () => {
    const res = await t.app.request("/healthz", { headers: { Origin: "https://evil.example" } });
    expect(res.status).toBe(200);
  });

  it("with allowedHosts (server on loopback) a foreign Host is 403, local and listed hosts pass", async () => {
    const local = createApp({
      database: t.database,
      logger: createJsonLogger({ write: () => {} }),
      version: "x",
      allowedHosts: ["reqlix.internal"],
    });
    const send = (host: string) =>
      local.request(`http://${host}/api/v1/mcp`, {
        method: "POST",
        headers: { Host: host, ...auth(), "Content-Type": "application/json" },
        body: PING,
      });
    expect((await send("evil.example")).status).toBe(403);
    expect((await send("evil.example:8787")).status).toBe(403);
    expect((await send("localhost:8787")).status).toBe(200);
    expect((await send("127.0.0.1:8787")).status).toBe(200);
    expect((await send("reqlix.internal:8787")).status).toBe(200);
  });
});

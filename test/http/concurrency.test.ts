/**
 * Safe writes under concurrency (issue 2 item 6, DESIGN's libSQL data-loss bug): many concurrent writers
 * through the real HTTP server (a socket, not app.request) on the embedded file database. Every
 * acknowledged write must be stored and no id may be handed out twice.
 */
import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/client.js";
import { createTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
let server: ServerType;
let base: string;

beforeAll(async () => {
  t = await createTestApp();
  await new Promise<void>((resolve) => {
    server = serve({ fetch: t.app.fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) => {
      base = `http://127.0.0.1:${info.port}`;
      resolve();
    });
  });
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
});

const WRITERS = 16;
const PER_WRITER = 6;

async function post(path: string, body: unknown, token = t.ownerToken) {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe(`${WRITERS} concurrent writers through the HTTP API`, () => {
  it("admin API: every acknowledged member and token is stored, token ids are unique", async () => {
    const acknowledged: { username: string; tokenId: number }[] = [];
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let i = 0; i < PER_WRITER; i++) {
          const username = `w${w}-u${i}`;
          const member = await post("/api/v1/admin/members", { username, role: "editor" });
          expect(member.status).toBe(201);
          const token = await post("/api/v1/admin/tokens", { username, name: `t-${w}-${i}` });
          expect(token.status).toBe(201);
          acknowledged.push({ username, tokenId: token.body.id as number });
        }
      }),
    );
    expect(acknowledged).toHaveLength(WRITERS * PER_WRITER);
    const ids = acknowledged.map((a) => a.tokenId);
    expect(new Set(ids).size).toBe(ids.length);

    // Read back through a separate connection, as a restarted process would see it.
    const fresh = await openDatabase({ url: t.dbUrl });
    try {
      const tokens = await fresh.client.execute(
        "SELECT t.id, u.username FROM tokens t JOIN users u ON u.id = t.user_id",
      );
      const stored = new Map(tokens.rows.map((r) => [Number(r.id), String(r.username)]));
      for (const a of acknowledged) expect(stored.get(a.tokenId)).toBe(a.username);
      const members = await fresh.client.execute(
        "SELECT count(*) AS n FROM memberships WHERE role = 'editor'",
      );
      expect(Number(members.rows[0]?.n)).toBe(WRITERS * PER_WRITER);
    } finally {
      await fresh.close();
    }
  });

  it("create_epic over JSON-RPC: every acknowledged epic is stored under a distinct EP id", async () => {
    const tokens = await Promise.all(
      Array.from({ length: WRITERS }, (_, w) => t.createToken(`epic-writer-${w}`, "editor")),
    );
    const acknowledged: string[] = [];
    let rpcId = 0;
    await Promise.all(
      tokens.map(async (token, w) => {
        for (let i = 0; i < PER_WRITER; i++) {
          const res = await post(
            "/api/v1/mcp",
            {
              jsonrpc: "2.0",
              id: ++rpcId,
              method: "tools/call",
              params: { name: "create_epic", arguments: { title: `Epic ${w}-${i}` } },
            },
            token,
          );
          expect(res.status).toBe(200);
          const result = res.body.result as { isError?: boolean; content: { text: string }[] };
          expect(result.isError ?? false).toBe(false);
          const ref = /EP-\d{3,}/.exec(JSON.stringify(result))?.[0];
          expect(ref).toBeDefined();
          acknowledged.push(ref as string);
        }
      }),
    );
    const n = WRITERS * PER_WRITER;
    expect(new Set(acknowledged).size).toBe(n);
    const expected = Array.from({ length: n }, (_, i) => `EP-${String(i + 1).padStart(3, "0")}`);
    expect([...acknowledged].sort()).toEqual(expected);

    const fresh = await openDatabase({ url: t.dbUrl });
    try {
      const rows = await fresh.client.execute({
        sql: "SELECT reference_id FROM epics WHERE workspace_id = ? ORDER BY reference_id",
        args: [t.workspaceId],
      });
      expect(rows.rows.map((r) => String(r.reference_id))).toEqual(expected);
    } finally {
      await fresh.close();
    }
  });
});

/**
 * list_my_tokens pages (limit + cursor → next_cursor), newest first, over a real server, real libSQL and the
 * real SDK client: walking the pages yields each of the caller's tokens exactly once, in order; another
 * user's or another workspace's tokens never appear; a malformed cursor, or one of another user, workspace
 * or list, is refused with -32602.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HostedServer, startHosted } from "../helpers/hosted.js";
import { rpcHttp, toolHttp } from "../helpers/rpc-http.js";

type Token = { id: number; name: string; current: boolean; revoked_at: string | null };
type Page = { tokens: Token[]; next_cursor?: string };

const MINTED = 24;
let server: HostedServer;
let paula: string;
let quinn: string;
let paulaElsewhere: string;
let client: Client;

async function connect(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const c = new Client({ name: "tokens-paging-test", version: "1.0.0" });
  await c.connect(transport);
  return c;
}

async function page(args: Record<string, unknown>): Promise<Page> {
  const result = (await client.callTool({ name: "list_my_tokens", arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`list_my_tokens failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Page;
}

beforeAll(async () => {
  server = await startHosted();
  paula = await server.createToken("paula", "viewer");
  quinn = await server.createToken("quinn", "editor");
  paulaElsewhere = await server.createToken("paula", "viewer", "elsewhere");
  for (let i = 0; i < MINTED; i++) {
    const name = `t${String(i).padStart(2, "0")}`;
    await toolHttp(server.url, paula, "create_my_token", { name });
    // Interleaved rows of others: a page must skip them, not stop at them.
    if (i % 6 === 0) await toolHttp(server.url, quinn, "create_my_token", { name: `quinn ${i}` });
    if (i % 8 === 0) await toolHttp(server.url, paulaElsewhere, "create_my_token", { name: `away ${i}` });
  }
  const some = (await toolHttp(server.url, paula, "list_my_tokens", { limit: 100 })) as Page;
  const t05 = some.tokens.find((t) => t.name === "t05") as Token;
  await toolHttp(server.url, paula, "revoke_my_token", { token_id: t05.id });
  client = await connect(paula);
}, 60_000);
afterAll(async () => {
  await client?.close().catch(() => {});
  await server?.close();
});

describe("list_my_tokens pages", () => {
  it("one page of 100 lists every token of the caller here, newest first, revoked ones too", async () => {
    const all = await page({ limit: 100 });
    expect(all.next_cursor).toBeUndefined();
    const minted = Array.from({ length: MINTED }, (_, i) => `t${String(i).padStart(2, "0")}`).reverse();
    expect(all.tokens.map((t) => t.name)).toEqual([...minted, "test viewer"]);
    const ids = all.tokens.map((t) => t.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(all.tokens.filter((t) => t.current).map((t) => t.name)).toEqual(["test viewer"]);
    expect(all.tokens.find((t) => t.name === "t05")?.revoked_at).not.toBeNull();
  });

  it("walking pages yields each token once, in order; the default page is 20", async () => {
    const all = await page({ limit: 100 });
    for (const limit of [1, 4, 7, 25]) {
      const seen: Token[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const p = await page({ limit, ...(cursor ? { cursor } : {}) });
        if (p.next_cursor) expect(p.tokens).toHaveLength(limit);
        seen.push(...p.tokens);
        cursor = p.next_cursor;
        pages++;
      } while (cursor && pages < 100);
      expect(seen, `limit ${limit}`).toEqual(all.tokens);
      expect(pages).toBe(Math.ceil(all.tokens.length / limit));
    }
    const first = await page({});
    expect(first.tokens).toEqual(all.tokens.slice(0, 20));
    expect(first.next_cursor).toBeDefined();
  });

  it("refuses a malformed cursor and one of another user, workspace or list (-32602)", async () => {
    const mine = (await page({ limit: 2 })).next_cursor as string;
    const quinns = (await toolHttp(server.url, quinn, "list_my_tokens", { limit: 1 })) as Page;
    // The shape of a list_requirements cursor: another list's.
    const otherList = btoa(JSON.stringify({ t: "requirements::::", k: 5 })).replace(/=+$/, "");
    const refused = async (token: string, cursor: string | undefined) => {
      const reply = await rpcHttp(server.url, token, "tools/call", {
        name: "list_my_tokens",
        arguments: { cursor },
      });
      expect(reply.body.error?.code, reply.text).toBe(-32602);
      expect(reply.body.error.message).toContain("cursor does not belong to this list or these filters");
    };
    await refused(paula, "garbage");
    await refused(paula, "eyJ0IjoibXlfdG9rZW5zIiwiayI6LTF9"); // {"t":"my_tokens","k":-1}
    await refused(quinn, mine);
    await refused(paulaElsewhere, mine);
    await refused(paula, quinns.next_cursor);
    await refused(paula, otherList);
    const result = (await client.callTool({
      name: "list_my_tokens",
      arguments: { cursor: mine.slice(0, -3) },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
  });

  it("another user and the caller in another workspace see their own tokens only", async () => {
    const q = (await toolHttp(server.url, quinn, "list_my_tokens", { limit: 100 })) as Page;
    expect(q.tokens.map((t) => t.name)).toEqual([
      "quinn 18",
      "quinn 12",
      "quinn 6",
      "quinn 0",
      "test editor",
    ]);
    const away = (await toolHttp(server.url, paulaElsewhere, "list_my_tokens", { limit: 2 })) as Page;
    expect(away.tokens.map((t) => t.name)).toEqual(["away 16", "away 8"]);
    const rest = (await toolHttp(server.url, paulaElsewhere, "list_my_tokens", {
      limit: 2,
      cursor: away.next_cursor,
    })) as Page;
    expect(rest.tokens.map((t) => t.name)).toEqual(["away 0", "test viewer"]);
    expect(rest.next_cursor).toBeUndefined();
  });
});

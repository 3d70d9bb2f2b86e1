/**
 * list_audit_events over the real app and HTTP (the audit rows are written by the faces' audit seam):
 * admins only, newest first, filters by user, tool, entity and time, keyset paging, one workspace only,
 * never argument values.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostedServer } from "../helpers/hosted.js";
import { startHosted } from "../helpers/hosted.js";
import { rpcHttp, toolHttp } from "../helpers/rpc-http.js";

interface Event {
  id: number;
  created_at: string;
  username: string | null;
  method: string;
  target: string | null;
  entity: string | null;
  outcome: string;
  error_code: string | null;
}
interface Page {
  items: Event[];
  next_cursor?: string;
}

let server: HostedServer;
let admin: string;
let editor: string;
let viewer: string;
let stranger: string;
const SECRET = "SECRET-ARGUMENT-VALUE-42";

const audit = async (args: Record<string, unknown> = {}, token = admin) =>
  (await toolHttp(server.url, token, "list_audit_events", args)) as unknown as Page;

beforeAll(async () => {
  server = await startHosted();
  admin = await server.createToken("ada", "admin");
  editor = await server.createToken("erin", "editor");
  viewer = await server.createToken("vic", "viewer");
  stranger = await server.createToken("sam", "admin", "other");
  await toolHttp(server.url, editor, "create_epic", { title: "Audited", description: SECRET }); // EP-001
  await toolHttp(server.url, editor, "create_user_story", { epic_id: "EP-001", title: "Story" });
  await toolHttp(server.url, viewer, "get_epic", { epic_id: "EP-001" });
  await rpcHttp(server.url, viewer, "tools/call", { name: "get_epic", arguments: { epic_id: "EP-099" } });
  await toolHttp(server.url, stranger, "create_epic", { title: "Theirs" });
  // Reads are written by the group-committed queue (every 50 ms): wait until the last one is in.
  for (let tries = 0; (await audit({ username: "vic" })).items.length < 2; tries++) {
    if (tries > 100) throw new Error("the viewer's reads never reached the audit trail");
    await new Promise((r) => setTimeout(r, 100));
  }
}, 60_000);
afterAll(async () => server?.close());

describe("list_audit_events", () => {
  it("lists this workspace's calls newest first, with who, what, which entity and the outcome", async () => {
    const page = await audit({ limit: 200 });
    // Tool calls (the admin CLI's member and token operations of the setup are in the trail too).
    const ours = page.items.filter((e) => e.method === "tools/call" && e.target !== "list_audit_events");
    expect(ours.map((e) => `${e.username} ${e.target} ${e.entity} ${e.outcome}`)).toEqual([
      "vic get_epic EP-099 error",
      "vic get_epic EP-001 ok",
      "erin create_user_story US-001 ok",
      "erin create_epic EP-001 ok",
    ]);
    expect(ours[0]?.error_code).toBe("not_found");
    expect(page.items.map((e) => e.method)).toContain("tokens.create");
    const ids = page.items.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(JSON.stringify(page)).not.toContain(SECRET);
    expect(JSON.stringify(page)).not.toContain("Theirs");
    expect(page.items.some((e) => e.username === "sam")).toBe(false);
  });

  it("filters by user, tool, entity (any case) and time range", async () => {
    expect((await audit({ username: "erin" })).items.map((e) => e.target)).toEqual([
      "create_user_story",
      "create_epic",
    ]);
    expect((await audit({ tool: "get_epic" })).items.map((e) => e.entity)).toEqual(["EP-099", "EP-001"]);
    expect((await audit({ entity: "ep-001" })).items.map((e) => e.target)).toEqual([
      "get_epic",
      "create_epic",
    ]);
    const all = (await audit({ username: "erin" })).items;
    const first = all.at(-1) as Event;
    expect((await audit({ username: "erin", until: first.created_at })).items.map((e) => e.id)).toEqual([
      first.id,
    ]);
    expect((await audit({ username: "erin", since: "2999-01-01T00:00:00Z" })).items).toEqual([]);
    expect((await audit({ username: "erin", since: "2000-01-01T00:00:00+02:00" })).items).toHaveLength(2);
    expect((await audit({ username: "nobody" })).items).toEqual([]);
  });

  it("pages with a keyset cursor: no event twice, none skipped", async () => {
    const whole = (await audit({ username: "vic", limit: 200 })).items.map((e) => e.id);
    const first = await audit({ username: "vic", limit: 1 });
    expect(first.items.map((e) => e.id)).toEqual(whole.slice(0, 1));
    const second = await audit({ username: "vic", limit: 1, cursor: first.next_cursor });
    expect(second.items.map((e) => e.id)).toEqual(whole.slice(1, 2));
    expect(second.next_cursor).toBeUndefined();
    const bad = await rpcHttp(server.url, admin, "tools/call", {
      name: "list_audit_events",
      arguments: { cursor: "not-a-cursor" },
    });
    expect(bad.body.error.code).toBe(-32602);
    const badTime = await rpcHttp(server.url, admin, "tools/call", {
      name: "list_audit_events",
      arguments: { since: "yesterday" },
    });
    expect(badTime.body.error.code).toBe(-32602);
    expect(JSON.stringify(badTime.body.error.data)).toContain("since");
  });

  it("is refused to viewers and editors; another workspace's admin sees only their own", async () => {
    for (const token of [viewer, editor]) {
      const reply = await rpcHttp(server.url, token, "tools/call", {
        name: "list_audit_events",
        arguments: {},
      });
      expect(reply.status).toBe(403);
      expect(reply.body.error.code).toBe(-32003);
      expect(reply.body.error.message).toContain("needs the admin role");
    }
    const theirs = await audit({}, stranger);
    expect(theirs.items.map((e) => e.username)).not.toContain("erin");
    expect(theirs.items.some((e) => e.target === "create_epic" && e.username === "sam")).toBe(true);
  });
});

/**
 * A workspace admin must not become instance owner (hardening issue, item 1). The attack, replayed over real
 * HTTP against the real app with real tokens: the admin of `team-evil` adds the existing owner `admin` to
 * their workspace, mints a token for it, and with that token creates workspaces, lists every workspace's
 * tokens and adds admins elsewhere. Every step is 403. Ownership comes only from the flag on the token's
 * user, and only through a token that user could legitimately hold (minted by themselves or the admin CLI).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { addMemberOp, createTokenOp, createWorkspaceOp, setOwnerOp } from "../../src/db/admin-ops.js";
import { recordAudit } from "../../src/db/audit.repo.js";
import { bootstrap } from "../../src/db/bootstrap.js";
import { openDatabase } from "../../src/db/client.js";
import { migrateDatabase } from "../../src/db/migrate.js";
import { insertToken } from "../../src/db/tokens.repo.js";
import { findUserByUsername } from "../../src/db/users.repo.js";
import { findWorkspaceBySlug } from "../../src/db/workspaces.repo.js";
import { createJsonLogger } from "../../src/http/logger.js";
import { type HostedServer, startHosted } from "../helpers/hosted.js";
import { migrationsBefore } from "../helpers/migrations-before.js";

let hosted: HostedServer;
let mallory: string;
let malloryId: number;

beforeAll(async () => {
  hosted = await startHosted();
  mallory = await hosted.createToken("mallory", "admin", "team-evil");
  const row = await hosted.database.client.execute("SELECT id FROM users WHERE username = 'mallory'");
  malloryId = Number(row.rows[0]?.id);
}, 60_000);
afterAll(async () => {
  await hosted?.close();
});

async function api(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${hosted.url}/api/v1/admin${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: bodies of many shapes; the assertions check them
  return { status: res.status, body: (await res.json()) as any };
}

async function adminMembership(workspace: string): Promise<string | undefined> {
  const r = await hosted.database.client.execute({
    sql: `SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id JOIN workspaces w ON w.id = m.workspace_id
          WHERE u.username = 'admin' AND w.slug = ?`,
    args: [workspace],
  });
  return r.rows[0] ? String(r.rows[0].role) : undefined;
}

/** The three things the escalated token was used for: each must be refused. */
async function expectNoOwnerPowers(token: string) {
  const ws = await api(token, "POST", "/workspaces", { slug: "stolen", name: "Stolen" });
  expect(ws.status).toBe(403);
  const list = await api(token, "GET", "/tokens?workspace=default");
  expect(list.status).toBe(403);
  const add = await api(token, "POST", "/members", {
    username: "mallory",
    role: "admin",
    workspace: "default",
  });
  expect(add.status).toBe(403);
}

describe("a workspace admin cannot become instance owner", () => {
  it("replays the attack: add the owner to one's workspace, mint a token for it, use it — 403 at each step", async () => {
    const add = await api(mallory, "POST", "/members", { username: "admin", role: "admin" });
    expect(add.status).toBe(403);
    expect(add.body.error.message).toMatch(/instance owner/);
    expect(await adminMembership("team-evil")).toBeUndefined();

    const mint = await api(mallory, "POST", "/tokens", { username: "admin", name: "mine now" });
    expect(mint.status).toBe(403);
    expect(mint.body.token).toBeUndefined();

    // The steps the stolen token was for, tried with mallory's own admin token.
    await expectNoOwnerPowers(mallory);
    expect(
      (await hosted.database.client.execute("SELECT 1 FROM workspaces WHERE slug = 'stolen'")).rows,
    ).toEqual([]);
  });

  it("when the owner is a member of the workspace, its admin can neither mint a token for them nor change their role", async () => {
    const cli = { actor: { kind: "cli" as const }, now: new Date() };
    await addMemberOp(hosted.database, cli, { username: "admin", role: "admin", workspace: "team-evil" });
    const ownerHere = await createTokenOp(hosted.database, cli, {
      username: "admin",
      name: "owner in team-evil",
      workspace: "team-evil",
    });

    const mint = await api(mallory, "POST", "/tokens", { username: "admin", name: "mine now" });
    expect(mint.status).toBe(403);
    expect(mint.body.error.message).toMatch(/instance owner/);
    const demote = await api(mallory, "POST", "/members", { username: "admin", role: "viewer" });
    expect(demote.status).toBe(403);
    expect(await adminMembership("team-evil")).toBe("admin");
    const revoke = await api(mallory, "DELETE", `/tokens/${ownerHere.id}`);
    expect(revoke.status).toBe(403);
    // The owner's own token, minted by the CLI, keeps the owner's powers.
    expect((await api(ownerHere.token, "GET", "/tokens?workspace=default")).status).toBe(200);
  });

  it("an owner token minted by someone else (a leftover from before the fix) carries no owner powers", async () => {
    const forged = await hosted.database.write(async (tx) => {
      const ws = await findWorkspaceBySlug(tx, "team-evil");
      const owner = await findUserByUsername(tx, "admin");
      if (!ws || !owner) throw new Error("fixture missing");
      return insertToken(tx, {
        userId: owner.id,
        workspaceId: ws.id,
        name: "minted by mallory",
        expiresAt: null,
        createdByUserId: malloryId,
      });
    });
    await expectNoOwnerPowers(forged.token);
  });

  it("a user of another workspace added here gets a token that acts only here", async () => {
    await hosted.createToken("bob", "admin", "default");
    expect((await api(mallory, "POST", "/members", { username: "bob", role: "admin" })).status).toBe(201);
    const minted = await api(mallory, "POST", "/tokens", { username: "bob", name: "bob in evil" });
    expect(minted.status).toBe(201);
    expect(minted.body.workspace).toBe("team-evil");
    const bobHere = minted.body.token as string;
    expect((await api(bobHere, "GET", "/tokens?workspace=default")).status).toBe(403);
    expect(
      (await api(bobHere, "POST", "/members", { username: "mallory", role: "admin", workspace: "default" }))
        .status,
    ).toBe(403);
    const own = await api(bobHere, "GET", "/tokens");
    expect(own.status).toBe(200);
    expect(own.body.tokens.every((x: { workspace: string }) => x.workspace === "team-evil")).toBe(true);
    // Every token records who minted it.
    const row = own.body.tokens.find((x: { id: number }) => x.id === minted.body.id);
    expect(row.created_by).toBe("mallory");
  });

  it("the owner keeps every power, also through a token they minted for themselves", async () => {
    const self = await api(hosted.ownerToken, "POST", "/tokens", {
      username: "admin",
      name: "second laptop",
    });
    expect(self.status).toBe(201);
    const ws = await api(self.body.token, "POST", "/workspaces", { slug: "team-new", name: "New" });
    expect(ws.status).toBe(201);
    expect((await api(self.body.token, "GET", "/tokens?workspace=team-evil")).status).toBe(200);
  });
});

describe("owners among themselves", () => {
  it("an owner mints no token for another owner, and no token changes ownership", async () => {
    const cli = { actor: { kind: "cli" as const }, now: new Date() };
    await addMemberOp(hosted.database, cli, { username: "olga", role: "admin", workspace: "default" });
    await setOwnerOp(hosted.database, cli, { username: "olga", owner: true });
    const forOlga = await api(hosted.ownerToken, "POST", "/tokens", { username: "olga", name: "from admin" });
    expect(forOlga.status).toBe(403);
    expect(forOlga.body.error.message).toMatch(/minted only by that owner or the admin CLI/);
    // Memberships are another matter: owners are peers there.
    expect(
      (await api(hosted.ownerToken, "POST", "/members", { username: "olga", role: "viewer" })).status,
    ).toBe(201);
    const auth = await hosted.database.client.execute("SELECT id FROM users WHERE username = 'admin'");
    const ownerActor = {
      kind: "token" as const,
      userId: Number(auth.rows[0]?.id),
      workspaceId: hosted.workspaceId,
      role: "admin" as const,
      isOwner: true,
      tokenId: 1,
    };
    await expect(
      setOwnerOp(
        hosted.database,
        { actor: ownerActor, now: new Date() },
        { username: "mallory", owner: true },
      ),
    ).rejects.toThrow(/changed only with the admin CLI/);
  });
});

describe("tokens minted before the fix", () => {
  it("the migration takes a token's creator from the audit trail: one minted for the owner by a workspace admin loses the owner's powers", async () => {
    const dir = mkdtempSync(join(tmpdir(), "reqlix-legacy-"));
    try {
      // A database as it was before 0006: the migrations up to 0005 only.
      const before = migrationsBefore(dir, "0006_token_created_by_backfill");
      const database = await openDatabase({ url: `file:${join(dir, "legacy.db")}` });
      try {
        await migrateDatabase(database, before);
        const boot = await bootstrap(database);
        if (!boot.created) throw new Error("not bootstrapped");
        const cli = { actor: { kind: "cli" as const }, now: new Date() };
        await createWorkspaceOp(database, cli, { slug: "team-evil", name: "Evil" });
        await addMemberOp(database, cli, { username: "mallory", role: "admin", workspace: "team-evil" });
        await addMemberOp(database, cli, { username: "admin", role: "admin", workspace: "team-evil" });
        const malloryToken = await createTokenOp(database, cli, {
          username: "mallory",
          name: "m",
          workspace: "team-evil",
        });
        const cliOwnerToken = await createTokenOp(database, cli, {
          username: "admin",
          name: "cli",
          workspace: "team-evil",
        });
        // What the old admin API wrote when mallory minted a token for the owner: no creator, one audit row.
        const stolen = await database.write(async (tx) => {
          const ws = await findWorkspaceBySlug(tx, "team-evil");
          const owner = await findUserByUsername(tx, "admin");
          const m = await findUserByUsername(tx, "mallory");
          if (!ws || !owner || !m) throw new Error("fixture missing");
          const created = await insertToken(tx, {
            userId: owner.id,
            workspaceId: ws.id,
            name: "mine now",
            expiresAt: null,
          });
          await recordAudit(tx, {
            workspaceId: ws.id,
            userId: m.id,
            tokenId: malloryToken.id,
            channel: "admin",
            method: "tokens.create",
            target: `token:${created.id}`,
            outcome: "ok",
          });
          return created;
        });

        await migrateDatabase(database);
        const app = createApp({ database, logger: createJsonLogger({ write: () => {} }), version: "t" });
        const createWs = (token: string, slug: string) =>
          app.request("/api/v1/admin/workspaces", {
            method: "POST",
            headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
            body: JSON.stringify({ slug, name: slug }),
          });
        expect((await createWs(stolen.token, "stolen")).status).toBe(403);
        expect((await createWs(cliOwnerToken.token, "by-cli-token")).status).toBe(201);
        expect((await createWs(boot.token, "by-bootstrap-token")).status).toBe(201);
        const creators = await database.client.execute(
          "SELECT t.name, u.username FROM tokens t LEFT JOIN users u ON u.id = t.created_by_user_id ORDER BY t.id",
        );
        expect(creators.rows.map((r) => [r.name, r.username])).toEqual([
          ["bootstrap", null],
          ["m", null],
          ["cli", null],
          ["mine now", "mallory"],
        ]);
      } finally {
        await database.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

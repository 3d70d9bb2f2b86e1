/**
 * Invitations and the admin CLI's password commands (issue 12 item 4), end to end: the admin CLI as a real
 * process (`invite`, `set-password` reading stdin, never argv) against the server's libSQL file, the
 * invitation page over real HTTP, the admin API's invitation, expired and reused links refused, the
 * invitation secret only hashed at rest.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inviteOp } from "../../src/db/account-ops.js";
import { addMemberOp } from "../../src/db/admin-ops.js";
import type { HostedServer } from "../helpers/hosted.js";
import { startWebServer, WebClient } from "./web-client.js";

const ROOT = resolve(import.meta.dirname, "../..");
let server: HostedServer;

/** `npm run admin -- …` as its own process on the server's database file; `stdin` is piped in. */
function admin(args: string[], stdin = ""): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", resolve(ROOT, "src/cli/admin.ts"), ...args, "--db", server.dbUrl],
      { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", fail);
    child.on("close", (code) => done({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

async function signInWithPassword(client: WebClient, login: string, password: string) {
  await client.get("/signin");
  return client.post("/signin", { method: "password", login, password, next: "/" });
}

async function accept(client: WebClient, path: string, form: Record<string, string>) {
  const page = await client.get(path);
  const code = new URL(path, server.url).searchParams.get("code") as string;
  return { page, reply: await client.post("/invite", { code, ...form }) };
}

beforeAll(async () => {
  server = await startWebServer();
}, 60_000);
afterAll(async () => {
  await server.close();
});

describe("admin CLI: set-password", () => {
  it("reads the password from stdin, ends the user's sessions, and the user signs in with it", async () => {
    await addMemberOp(
      server.database,
      { actor: { kind: "cli" }, now: new Date() },
      {
        username: "carol",
        role: "editor",
      },
    );
    const first = await admin(["set-password", "--user", "carol"], "carol first password\n");
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      username: "carol",
      password_set: true,
      sessions_revoked: true,
    });
    expect(first.stdout + first.stderr).not.toContain("carol first password");
    const client = new WebClient(server.url);
    expect((await signInWithPassword(client, "carol", "carol first password")).status).toBe(303);
    expect((await client.get("/")).status).toBe(200);

    const second = await admin(["set-password", "--user", "carol"], "carol second password\n");
    expect(second.code, second.stderr).toBe(0);
    // The session opened with the old password has ended.
    expect((await client.get("/")).status).toBe(303);
    expect(
      (await signInWithPassword(new WebClient(server.url), "carol", "carol first password")).status,
    ).toBe(401);
    expect(
      (await signInWithPassword(new WebClient(server.url), "carol", "carol second password")).status,
    ).toBe(303);
  }, 120_000);

  it("refuses a password on the command line, a short one, and an unknown user", async () => {
    const argv = await admin(["set-password", "--user", "carol", "--password", "in argv is visible"]);
    expect(argv.code).toBe(2);
    expect(argv.stderr).toContain("Unknown option '--password'");
    const short = await admin(["set-password", "--user", "carol"], "short\n");
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("--password: A password needs at least 10 characters.");
    const unknown = await admin(["set-password", "--user", "nobody"], "long enough password\n");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('User "nobody" does not exist');
  }, 120_000);
});

describe("invitations", () => {
  it("CLI invite → the link → choose a username and password → a member with that role, signed in; the link works once", async () => {
    const made = await admin([
      "invite",
      "--workspace",
      "default",
      "--email",
      "Dora@Example.com",
      "--role",
      "editor",
      "--base-url",
      server.url,
    ]);
    expect(made.code, made.stderr).toBe(0);
    const invite = JSON.parse(made.stdout) as { link: string; path: string; email: string; role: string };
    expect(invite.email).toBe("dora@example.com");
    expect(invite.link).toBe(`${server.url}${invite.path}`);
    const secret = new URL(invite.link).searchParams.get("code") as string;
    expect(secret).toMatch(/^rqi_[A-Za-z0-9]{43}$/);

    const client = new WebClient(server.url);
    const { page, reply } = await accept(client, invite.path, {
      username: "dora",
      password: "dora chosen password",
      confirm: "dora chosen password",
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain("as <strong>editor</strong>");
    expect(reply.status, reply.text.slice(0, 300)).toBe(303);
    const home = await client.get("/");
    expect(home.status).toBe(200);
    expect(home.text).toContain('dora</a> <span class="role">editor</span>');

    // Used: refused on the page and on the form, nothing changes.
    const again = new WebClient(server.url);
    const used = await accept(again, invite.path, {
      username: "dora2",
      password: "another password 1",
      confirm: "another password 1",
    });
    expect(used.page.status).toBe(410);
    expect(used.page.text).toContain("already used");
    expect(used.reply.status).toBe(410);
    const users = await server.database.client.execute("SELECT username FROM users WHERE username = 'dora2'");
    expect(users.rows).toHaveLength(0);
    // She signs in later with the password she chose, by username or email.
    expect(
      (await signInWithPassword(new WebClient(server.url), "dora@example.com", "dora chosen password"))
        .status,
    ).toBe(303);

    // At rest: the secret's hash only; the password's argon2id hash only.
    const dump = JSON.stringify([
      (await server.database.client.execute("SELECT * FROM invitations")).rows,
      (await server.database.client.execute("SELECT * FROM users")).rows,
      (await server.database.client.execute("SELECT * FROM user_credentials")).rows,
      (await server.database.client.execute("SELECT * FROM audit_events")).rows,
    ]);
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(secret.slice(4));
    expect(dump).not.toContain("dora chosen password");
  }, 120_000);

  it("an expired link is refused", async () => {
    const past = new Date(Date.now() - 2 * 3_600_000);
    const invite = await inviteOp(
      server.database,
      { actor: { kind: "cli" }, now: past },
      {
        email: "late@example.com",
        role: "viewer",
        expires_in_hours: 1,
      },
    );
    const client = new WebClient(server.url);
    const { page, reply } = await accept(client, invite.path, {
      username: "late",
      password: "late chosen password",
      confirm: "late chosen password",
    });
    expect(page.status).toBe(410);
    expect(page.text).toContain("This invitation expired at");
    expect(reply.status).toBe(410);
    expect(
      (await server.database.client.execute("SELECT 1 FROM users WHERE username = 'late'")).rows,
    ).toHaveLength(0);
  });

  it("an unknown code is refused", async () => {
    const client = new WebClient(server.url);
    const page = await client.get(`/invite?code=rqi_${"A".repeat(43)}`);
    expect(page.status).toBe(404);
    expect(page.text).toContain("This invitation link is not valid");
  });

  it("the admin API invites; an existing account joins with its own password, never by the email alone", async () => {
    // erin exists with a password and the invited email (she accepted an earlier invitation).
    const first = await inviteOp(
      server.database,
      { actor: { kind: "cli" }, now: new Date() },
      {
        email: "erin@example.com",
        role: "viewer",
      },
    );
    const joined = await accept(new WebClient(server.url), first.path, {
      username: "erin",
      password: "erin own password",
      confirm: "erin own password",
    });
    expect(joined.reply.status).toBe(303);

    const res = await fetch(`${server.url}/api/v1/admin/invitations`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.ownerToken}`, "content-type": "application/json" },
      body: JSON.stringify({ workspace: "other-team", email: "erin@example.com", role: "admin" }),
    });
    expect(res.status).toBe(404);
    await server.createToken("someone", "viewer", "other-team");
    const api = await fetch(`${server.url}/api/v1/admin/invitations`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.ownerToken}`, "content-type": "application/json" },
      body: JSON.stringify({ workspace: "other-team", email: "erin@example.com", role: "admin" }),
    });
    expect(api.status).toBe(201);
    expect(api.headers.get("cache-control")).toBe("no-store");
    const made = (await api.json()) as { link: string; path: string };
    expect(made.link).toBe(`${server.url}${made.path}`);

    const client = new WebClient(server.url);
    const page = await client.get(made.path);
    expect(page.text).toContain("belongs to the account <strong>erin</strong>");
    const wrong = await client.post("/invite", {
      code: new URL(made.link).searchParams.get("code") as string,
      username: "erin",
      password: "not erin's password",
    });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain("wrong password");
    const right = await client.post("/invite", {
      code: new URL(made.link).searchParams.get("code") as string,
      username: "erin",
      password: "erin own password",
    });
    expect(right.status).toBe(303);
    const home = await client.get("/");
    expect(home.text).toContain('title="workspace (choose another)">other-team</a>');
    expect(home.text).toContain('<span class="role">admin</span>');
  }, 120_000);

  it("a viewer may not invite over the admin API", async () => {
    const token = await server.createToken("vic", "viewer");
    const res = await fetch(`${server.url}/api/v1/admin/invitations`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "x@example.com", role: "admin" }),
    });
    expect(res.status).toBe(403);
    const rows = await server.database.client.execute(
      "SELECT 1 FROM invitations WHERE email = 'x@example.com'",
    );
    expect(rows.rows).toHaveLength(0);
  });
});

/**
 * Password sign-in (issue 12 item 4) over real HTTP and a real libSQL file: the same answer and about the
 * same time for a wrong password, an unknown user and a user without a password; limits per address and
 * per account; session rotation; the workspace chooser; a password change ending the user's other
 * sessions; hashes at rest.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseIpRange } from "../../src/core/ip-ranges.js";
import { setPasswordOp } from "../../src/db/account-ops.js";
import { addMemberOp, createWorkspaceOp } from "../../src/db/admin-ops.js";
import { MemoryRateLimiter } from "../../src/http/rate-limit-memory.js";
import type { HostedServer } from "../helpers/hosted.js";
import { startWebServer, WebClient } from "./web-client.js";

const LIMIT = 4;
let server: HostedServer;
const cli = () => ({ actor: { kind: "cli" as const }, now: new Date() });

async function addUser(username: string, password?: string, workspace = "default", role = "editor" as const) {
  await addMemberOp(server.database, cli(), { username, role, workspace });
  if (password) await setPasswordOp(server.database, cli(), { username, password });
}

/** Signs in with a password from `address` (X-Forwarded-For, trusted from 127.0.0.1). */
async function signInFrom(client: WebClient, login: string, password: string, address = "203.0.113.1") {
  await client.get("/signin");
  const headers: Record<string, string> = {
    cookie: client.cookieHeader(),
    "content-type": "application/x-www-form-urlencoded",
    "x-forwarded-for": address,
  };
  const body = new URLSearchParams({ _csrf: client.csrf, method: "password", login, password, next: "/" });
  const res = await fetch(`${server.url}/signin`, { method: "POST", headers, body, redirect: "manual" });
  const setCookies = res.headers.getSetCookie();
  for (const line of setCookies) {
    const [pair] = line.split(";");
    const eq = (pair ?? "").indexOf("=");
    const name = (pair ?? "").slice(0, eq);
    const value = (pair ?? "").slice(eq + 1);
    if (value === "" || /max-age=0/i.test(line)) client.cookies.delete(name);
    else client.cookies.set(name, value);
  }
  return { status: res.status, location: res.headers.get("location"), text: await res.text(), setCookies };
}

/** The visible answer without what differs per request (the CSRF value, the typed name). */
function normalized(text: string, login: string): string {
  return text
    .replace(/value="[A-Za-z0-9_-]{43}"/g, 'value="…"')
    .replaceAll(`value="${login}"`, 'value="LOGIN"');
}

beforeAll(async () => {
  server = await startWebServer({
    deps: {
      signInRateLimiter: new MemoryRateLimiter({ limit: LIMIT }),
      trustedProxies: [parseIpRange("127.0.0.1") as NonNullable<ReturnType<typeof parseIpRange>>],
    },
  });
  await addUser("ada", "correct horse battery");
  await addUser("tokenonly");
  for (let i = 0; i < 3; i++) await addUser(`timer${i}`, `timer password ${i}`);
  await addUser("lin", "lin password 1");
  await addUser("dev", "dev password 1");
  await addUser("roam", "roam password 1");
  await createWorkspaceOp(server.database, cli(), { slug: "second", name: "Second team" });
  await addUser("multi", "multi password 1", "default", "editor");
  await addMemberOp(server.database, cli(), { username: "multi", role: "viewer", workspace: "second" });
}, 60_000);
afterAll(async () => {
  await server.close();
});

describe("password sign-in", () => {
  it("signs in by username or email-less login, acts as the member, and rotates the session", async () => {
    const client = new WebClient(server.url);
    // A planted or earlier session is replaced, never adopted.
    await client.signIn(server.ownerToken);
    const before = client.cookies.get("rqx_session") as string;
    const reply = await signInFrom(client, "ada", "correct horse battery", "203.0.113.10");
    expect(reply.status).toBe(303);
    expect(reply.location).toBe("/");
    const after = client.cookies.get("rqx_session") as string;
    expect(after).not.toBe(before);
    const home = await client.get("/");
    expect(home.status).toBe(200);
    expect(home.text).toContain('ada</a> <span class="role">editor</span>');
    // The earlier session no longer works.
    const old = new WebClient(server.url);
    old.cookies.set("rqx_session", before);
    expect((await old.get("/")).status).toBe(303);
    // The session token is not a PAT: not on "My tokens".
    expect((await client.get("/tokens")).text).not.toContain("web sign-in");
  });

  it("a wrong password, an unknown user and a user without a password get the same answer", async () => {
    const answers = [];
    for (const [i, [login, password]] of [
      ["ada", "wrong password 123"],
      ["nobody-here", "wrong password 123"],
      ["tokenonly", "wrong password 123"],
    ].entries()) {
      const reply = await signInFrom(
        new WebClient(server.url),
        login as string,
        password as string,
        `198.51.100.${i}`,
      );
      expect(reply.status).toBe(401);
      expect(reply.text).toContain("Sign-in refused: wrong username or password.");
      answers.push(normalized(reply.text, login as string));
    }
    expect(answers[1]).toBe(answers[0]);
    expect(answers[2]).toBe(answers[0]);
  });

  it("an unknown user takes as long as a wrong password (both run one argon2id)", async () => {
    const time = async (login: string, n: number) => {
      const client = new WebClient(server.url);
      const start = performance.now();
      const reply = await signInFrom(client, login, "wrong password 123", `192.0.2.${n}`);
      expect(reply.status).toBe(401);
      return performance.now() - start;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    // Interleaved, so load on the machine hits both alike; each from its own address and below the limit.
    // Three known accounts, two tries each: below the per-account limit.
    for (let i = 0; i < 6; i++) {
      known.push(await time(`timer${i % 3}`, 2 * i));
      unknown.push(await time(`ghost${i}`, 2 * i + 1));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const ratio = median(unknown) / median(known);
    // Without the decoy hash an unknown user answers in a few ms against hundreds: a ratio near 0.
    expect(ratio, `known ${known.map(Math.round)} unknown ${unknown.map(Math.round)}`).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  }, 120_000);

  it("limits failures per account across addresses, known and unknown accounts alike, even with the right password", async () => {
    // The limiter lets LIMIT failures through a minute; the one after is refused and starts the wait.
    for (const login of ["lin", "phantom"]) {
      for (let i = 0; i <= LIMIT; i++) {
        const reply = await signInFrom(
          new WebClient(server.url),
          login,
          "guess guess guess",
          `10.1.${login.length}.${i}`,
        );
        expect(reply.status).toBe(401);
      }
    }
    const known = await signInFrom(new WebClient(server.url), "lin", "lin password 1", "10.9.9.1");
    const unknown = await signInFrom(
      new WebClient(server.url),
      "phantom",
      "correct horse battery",
      "10.9.9.2",
    );
    expect(known.status).toBe(429);
    expect(unknown.status).toBe(429);
    expect(known.text).toContain("Too many failed sign-ins");
    expect(normalized(known.text, "lin").replace(/wait \d+ seconds/, "")).toBe(
      normalized(unknown.text, "phantom").replace(/wait \d+ seconds/, ""),
    );
  });

  it("limits failures per address across accounts", async () => {
    for (let i = 0; i <= LIMIT; i++) {
      expect(
        (await signInFrom(new WebClient(server.url), `user${i}`, "nope nope nope", "10.7.7.7")).status,
      ).toBe(401);
    }
    const reply = await signInFrom(new WebClient(server.url), "multi", "multi password 1", "10.7.7.7");
    expect(reply.status).toBe(429);
    // The same account from another address signs in.
    expect(
      (await signInFrom(new WebClient(server.url), "multi", "multi password 1", "10.7.7.8")).status,
    ).toBe(303);
  });

  it("a browser that signed in before is not locked out by guesses at its account from elsewhere (device cookie)", async () => {
    const owner = new WebClient(server.url);
    const first = await signInFrom(owner, "dev", "dev password 1", "10.5.0.1");
    expect(first.status).toBe(303);
    const line = first.setCookies.find((l) => l.startsWith("rqx_device=")) as string;
    expect(line).toMatch(
      /^rqx_device=[A-Za-z0-9_-]{43}; Path=\/signin; SameSite=Lax; Max-Age=15552000; HttpOnly$/,
    );
    const secret = owner.cookies.get("rqx_device") as string;
    // Someone guesses at "dev" from many addresses until the account is blocked.
    for (let i = 0; i <= LIMIT; i++) {
      const reply = await signInFrom(new WebClient(server.url), "dev", "guess guess guess", `10.6.0.${i}`);
      expect(reply.status).toBe(401);
    }
    const stranger = await signInFrom(new WebClient(server.url), "dev", "dev password 1", "10.6.1.1");
    expect(stranger.status).toBe(429);
    // The owner's browser, from an address that has not failed, signs in; the cookie stays as it was.
    const again = await signInFrom(owner, "dev", "dev password 1", "10.5.0.2");
    expect(again.status).toBe(303);
    expect(again.setCookies.some((l) => l.startsWith("rqx_device="))).toBe(false);
    expect(owner.cookies.get("rqx_device")).toBe(secret);
    // The cookie is not a credential: a wrong password from that browser is refused, and counted on the
    // device's own key until that browser too is blocked.
    for (let i = 0; i <= LIMIT; i++) {
      expect((await signInFrom(owner, "dev", "wrong from the owner", `10.5.1.${i}`)).status).toBe(401);
    }
    expect((await signInFrom(owner, "dev", "dev password 1", "10.5.2.1")).status).toBe(429);
    // Naming another account, the cookie is no help: that account's own limit applies.
    for (let i = 0; i <= LIMIT; i++) {
      await signInFrom(new WebClient(server.url), "ghost-of-dev", "guess guess guess", `10.6.2.${i}`);
    }
    const other = new WebClient(server.url);
    other.cookies.set("rqx_device", secret);
    expect((await signInFrom(other, "ghost-of-dev", "guess", "10.6.3.1")).status).toBe(429);
    // Only the secret's SHA-256 is stored.
    const rows = (await server.database.client.execute("SELECT secret_hash FROM trusted_devices")).rows;
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(rows.map((r) => r.secret_hash)).toContain(createHash("sha256").update(secret).digest("hex"));
  });

  it("a browser keeps one device cookie: signing in as another user replaces it, and a user keeps ten at most", async () => {
    const shared = new WebClient(server.url);
    expect((await signInFrom(shared, "ada", "correct horse battery", "10.4.0.1")).status).toBe(303);
    const adas = shared.cookies.get("rqx_device") as string;
    expect((await signInFrom(shared, "multi", "multi password 1", "10.4.0.2")).status).toBe(303);
    const multis = shared.cookies.get("rqx_device") as string;
    expect(multis).not.toBe(adas);
    const hashes = async () =>
      (await server.database.client.execute("SELECT secret_hash FROM trusted_devices")).rows.map(
        (r) => r.secret_hash,
      );
    const sha = (v: string) => createHash("sha256").update(v).digest("hex");
    expect(await hashes()).not.toContain(sha(adas));
    expect(await hashes()).toContain(sha(multis));
    for (let i = 0; i < 12; i++) {
      expect(
        (await signInFrom(new WebClient(server.url), "roam", "roam password 1", `10.4.1.${i}`)).status,
      ).toBe(303);
    }
    const roams = await server.database.client.execute(
      "SELECT count(*) AS n FROM trusted_devices JOIN users ON users.id = user_id WHERE username = 'roam'",
    );
    expect(Number(roams.rows[0]?.n)).toBe(10);
  });

  it("a member of several workspaces chooses one after sign-in and can switch; each switch is a new session", async () => {
    const client = new WebClient(server.url);
    const reply = await signInFrom(client, "multi", "multi password 1", "10.3.3.3");
    expect(reply.status).toBe(303);
    expect(reply.location).toBe("/workspaces?next=%2F");
    const chooser = await client.get(reply.location as string);
    expect(chooser.text).toContain("Second team (second)");
    expect(chooser.text).toContain("default");
    const first = client.cookies.get("rqx_session");
    const switched = await client.post("/workspaces", { workspace: "second", next: "/tree" });
    expect(switched.status).toBe(303);
    expect(switched.location).toBe("/tree");
    expect(client.cookies.get("rqx_session")).not.toBe(first);
    const home = await client.get("/");
    expect(home.text).toContain('title="workspace (choose another)">second</a>');
    expect(home.text).toContain('<span class="role">viewer</span>');
    const old = new WebClient(server.url);
    old.cookies.set("rqx_session", first as string);
    expect((await old.get("/")).status).toBe(303);
    // Not a member: refused, nothing changes.
    const refused = await client.post("/workspaces", { workspace: "other-nowhere", next: "/" });
    expect(refused.status).toBe(403);
    expect((await client.get("/")).status).toBe(200);
  });

  it("a token's session cannot switch workspace", async () => {
    const client = new WebClient(server.url);
    await client.signIn(server.ownerToken);
    expect((await client.get("/workspaces")).text).toContain("personal access token");
    await createWorkspaceOp(server.database, cli(), { slug: "third", name: "Third" });
    await addMemberOp(server.database, cli(), { username: "admin", role: "admin", workspace: "third" });
    expect((await client.post("/workspaces", { workspace: "third", next: "/" })).status).toBe(403);
  });

  it("changing the password ends the user's other sessions and keeps this one", async () => {
    await addUser("grace", "grace password one");
    const a = new WebClient(server.url);
    const b = new WebClient(server.url);
    expect((await signInFrom(a, "grace", "grace password one", "10.4.4.1")).status).toBe(303);
    expect((await signInFrom(b, "grace", "grace password one", "10.4.4.2")).status).toBe(303);
    await a.get("/account/password");
    const wrong = await a.post("/account/password", {
      current: "not it at all",
      new: "grace password two",
      confirm: "grace password two",
    });
    expect(wrong.status).toBe(403);
    expect((await b.get("/")).status).toBe(200);
    const changed = await a.post("/account/password", {
      current: "grace password one",
      new: "grace password two",
      confirm: "grace password two",
    });
    expect(changed.status).toBe(303);
    expect((await a.get("/")).status).toBe(200);
    expect((await b.get("/")).status).toBe(303);
    expect(
      (await signInFrom(new WebClient(server.url), "grace", "grace password one", "10.4.4.3")).status,
    ).toBe(401);
    expect(
      (await signInFrom(new WebClient(server.url), "grace", "grace password two", "10.4.4.4")).status,
    ).toBe(303);
  });

  it("keeps no password in clear: argon2id hashes with their parameters only", async () => {
    const dump = JSON.stringify([
      (await server.database.client.execute("SELECT * FROM users")).rows,
      (await server.database.client.execute("SELECT * FROM user_credentials")).rows,
    ]);
    for (const clear of ["correct horse battery", "multi password 1", "grace password two"])
      expect(dump).not.toContain(clear);
    const rs = await server.database.client.execute(
      "SELECT password_hash FROM user_credentials JOIN users ON users.id = user_id WHERE username IN ('ada', 'multi', 'grace')",
    );
    for (const row of rs.rows)
      expect(String(row.password_hash)).toMatch(
        /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/,
      );
  });
});

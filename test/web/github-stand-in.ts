/**
 * A stand-in for GitHub (or GitHub Enterprise Server, whose API lives under `/api/v3`) on a free port of
 * this process: exactly the endpoints and answer shapes GitHub documents for an OAuth app's web flow
 * ("Authorizing OAuth apps", "Troubleshooting authorization request errors", "Troubleshooting OAuth app
 * access token request errors") and the two REST calls a sign-in makes ("REST API endpoints for users",
 * "… for emails"):
 *
 *   GET  /login/oauth/authorize       the consent page: an account name to sign in as, Authorize / Cancel
 *   POST /login/oauth/authorize       → redirect_uri?code&state, or ?error=access_denied&…&state
 *   POST /login/oauth/access_token    form body; JSON with Accept: application/json, else a form string;
 *                                     a refused code is HTTP 200 with `error` (as GitHub does)
 *   GET  /api/v3/user                 the account (numeric `id`, `login`, …); 401 without a valid token
 *   GET  /api/v3/user/emails          [{email, primary, verified, visibility}]; needs scope user:email
 *
 * PKCE is enforced (S256 of the code_verifier must equal the code_challenge sent to authorize), codes are
 * single-use and bound to the client and redirect_uri. Every token request is recorded for assertions;
 * `failing` makes the token endpoint or the API answer 503 (GitHub down).
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";

export interface StandInAccount {
  id: number;
  login: string;
  emails: { email: string; primary: boolean; verified: boolean }[];
}

export interface TokenRequest {
  accept: string | undefined;
  contentType: string | undefined;
  form: Record<string, string>;
}

interface Grant {
  account: StandInAccount;
  clientId: string;
  redirectUri: string;
  scope: string;
  challenge: string | undefined;
  method: string | undefined;
}

const ERROR_DOCS =
  "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors";

export class GitHubStandIn {
  readonly tokenRequests: TokenRequest[] = [];
  /** Every access token handed out (to check none reaches reqlix's logs or database). */
  readonly issuedTokens: string[] = [];
  /** The query of every authorize request seen. */
  readonly authorizeRequests: URLSearchParams[] = [];
  failing: "token" | "api" | undefined;
  private readonly codes = new Map<string, Grant>();
  private readonly tokens = new Map<string, { account: StandInAccount; scope: string }>();
  private server: Server | undefined;
  url = "";

  constructor(
    private readonly app: { clientId: string; clientSecret: string; callbackUrl: () => string },
    private readonly accounts: StandInAccount[],
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
    });
    await new Promise<void>((done) => this.server?.listen(0, "127.0.0.1", done));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.url);
    const body = req.method === "POST" ? await readBody(req) : "";
    if (url.pathname === "/login/oauth/authorize" && req.method === "GET") return this.consentPage(url, res);
    if (url.pathname === "/login/oauth/authorize" && req.method === "POST") {
      return this.decide(new URLSearchParams(body), res);
    }
    if (url.pathname === "/login/oauth/access_token" && req.method === "POST") {
      return this.accessToken(req, new URLSearchParams(body), res);
    }
    if (url.pathname === "/api/v3/user" || url.pathname === "/api/v3/user/emails") {
      return this.api(req, url.pathname, res);
    }
    json(res, 404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
  }

  private consentPage(url: URL, res: ServerResponse): void {
    this.authorizeRequests.push(url.searchParams);
    if (url.searchParams.get("client_id") !== this.app.clientId) {
      res.writeHead(404, { "content-type": "text/html" }).end("<h1>404: unknown OAuth application</h1>");
      return;
    }
    const hidden = [...url.searchParams]
      .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
      .join("");
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
      `<!doctype html><html lang="en"><head><title>Authorize application</title></head><body><main>
<h1>Authorize reqlix</h1><form method="post" action="/login/oauth/authorize">${hidden}
<label for="login">Account</label><input id="login" name="login">
<button name="decision" value="authorize">Authorize</button>
<button name="decision" value="cancel">Cancel</button></form></main></body></html>`,
    );
  }

  /** What GitHub does after its consent page: back to the registered callback with a code or an error. */
  private decide(form: URLSearchParams, res: ServerResponse): void {
    const registered = this.app.callbackUrl();
    const redirectUri = form.get("redirect_uri") ?? registered;
    const back = new URL(registered);
    const state = form.get("state");
    if (redirectUri !== registered) {
      back.searchParams.set("error", "redirect_uri_mismatch");
      back.searchParams.set(
        "error_description",
        "The redirect_uri MUST match the registered callback URL for this application.",
      );
    } else if (form.get("decision") !== "authorize") {
      back.searchParams.set("error", "access_denied");
      back.searchParams.set("error_description", "The user has denied your application access.");
      back.searchParams.set(
        "error_uri",
        "/apps/building-integrations/setting-up-and-registering-oauth-apps/troubleshooting-authorization-request-errors/#access-denied",
      );
    } else {
      const account = this.accounts.find((a) => a.login === form.get("login"));
      if (!account) {
        res.writeHead(401, { "content-type": "text/html" }).end("<h1>Incorrect username or password.</h1>");
        return;
      }
      const code = randomBytes(10).toString("hex");
      this.codes.set(code, {
        account,
        clientId: form.get("client_id") ?? "",
        redirectUri,
        scope: form.get("scope") ?? "",
        challenge: form.get("code_challenge") ?? undefined,
        method: form.get("code_challenge_method") ?? undefined,
      });
      back.searchParams.set("code", code);
    }
    if (state !== null) back.searchParams.set("state", state);
    res.writeHead(302, { location: back.href }).end();
  }

  private accessToken(req: IncomingMessage, form: URLSearchParams, res: ServerResponse) {
    this.tokenRequests.push({
      accept: req.headers.accept,
      contentType: req.headers["content-type"],
      form: Object.fromEntries(form),
    });
    if (this.failing === "token") return json(res, 503, { message: "Service Unavailable" });
    const asJson = (req.headers.accept ?? "").includes("application/json");
    const answer = (fields: Record<string, string>) => {
      if (asJson) return json(res, 200, fields);
      res
        .writeHead(200, { "content-type": "application/x-www-form-urlencoded; charset=utf-8" })
        .end(new URLSearchParams(fields).toString());
    };
    const refuse = (error: string, description: string) =>
      answer({
        error,
        error_description: description,
        error_uri: `${ERROR_DOCS}#${error.replace(/_/g, "-")}`,
      });
    if (form.get("client_id") !== this.app.clientId || form.get("client_secret") !== this.app.clientSecret) {
      return refuse(
        "incorrect_client_credentials",
        "The client_id and/or client_secret passed are incorrect.",
      );
    }
    const code = form.get("code") ?? "";
    const grant = this.codes.get(code);
    this.codes.delete(code);
    if (!grant || grant.clientId !== form.get("client_id")) {
      return refuse("bad_verification_code", "The code passed is incorrect or expired.");
    }
    if (form.has("redirect_uri") && form.get("redirect_uri") !== grant.redirectUri) {
      return refuse(
        "redirect_uri_mismatch",
        "The redirect_uri MUST match the registered callback URL for this application.",
      );
    }
    if (grant.challenge !== undefined) {
      const verifier = form.get("code_verifier") ?? "";
      const expected =
        grant.method === "S256" ? createHash("sha256").update(verifier).digest("base64url") : verifier;
      if (verifier === "" || expected !== grant.challenge) {
        return refuse("bad_verification_code", "The code passed is incorrect or expired.");
      }
    }
    const token = `gho_${randomBytes(18).toString("base64url")}`;
    this.issuedTokens.push(token);
    this.tokens.set(token, { account: grant.account, scope: grant.scope });
    answer({ access_token: token, scope: grant.scope.split(" ").join(","), token_type: "bearer" });
  }

  private api(req: IncomingMessage, path: string, res: ServerResponse) {
    if (this.failing === "api") return json(res, 503, { message: "Service Unavailable" });
    const header = req.headers.authorization ?? "";
    const found = this.tokens.get(header.replace(/^(Bearer|token) /i, ""));
    if (!found) {
      return json(res, 401, {
        message: "Requires authentication",
        documentation_url: "https://docs.github.com/rest/users/users#get-the-authenticated-user",
      });
    }
    const { account, scope } = found;
    if (path === "/api/v3/user") {
      const publicEmail = account.emails.find((e) => e.primary)?.email ?? null;
      return json(res, 200, {
        login: account.login,
        id: account.id,
        node_id: `U_${account.id}`,
        avatar_url: `${this.url}/avatars/${account.id}`,
        url: `${this.url}/api/v3/users/${account.login}`,
        html_url: `${this.url}/${account.login}`,
        type: "User",
        site_admin: false,
        name: account.login.toUpperCase(),
        email: publicEmail,
        created_at: "2020-01-01T00:00:00Z",
        updated_at: "2026-01-01T00:00:00Z",
      });
    }
    if (!scope.split(/[ ,]/).includes("user:email") && !scope.split(/[ ,]/).includes("user")) {
      return json(res, 404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
    }
    return json(
      res,
      200,
      account.emails.map((e) => ({ ...e, visibility: e.primary ? "private" : null })),
    );
  }
}

/**
 * In a browser: from reqlix's sign-in page (`start` "Sign in with GitHub"), or from an invitation page
 * already open (`start` "Join with GitHub"), through the stand-in's consent page and back to reqlix.
 */
export async function signInThroughGitHub(
  page: Page,
  o: {
    appUrl: string;
    githubUrl: string;
    login: string;
    next?: string;
    start?: string;
    decision?: "Authorize" | "Cancel";
  },
): Promise<void> {
  const start = o.start ?? "Sign in with GitHub";
  if (start === "Sign in with GitHub") {
    await page.goto(`${o.appUrl}/signin?next=${encodeURIComponent(o.next ?? "/tree")}`);
  }
  await Promise.all([page.waitForURL((u) => u.href.startsWith(o.githubUrl)), page.click(`text=${start}`)]);
  await page.fill("input[name=login]", o.login);
  await Promise.all([
    page.waitForURL((u) => u.href.startsWith(o.appUrl)),
    page.click(`button:has-text('${o.decision ?? "Authorize"}')`),
  ]);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(value));
}

function esc(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

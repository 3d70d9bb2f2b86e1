/**
 * Sign-in with GitHub (issue 12 item 4), from the environment. GitHub has no OpenID Connect discovery for
 * people (its OAuth apps hand out an access token, and who signed in comes from its REST API), so it is a
 * provider of its own beside REQLIX_OIDC_*. github.com by default; GitHub Enterprise Server by its URL,
 * whose API lives at `<url>/api/v3`. The client id and secret together or not at all; a partial or bad
 * setting is refused at start, naming the variable.
 */
export interface GitHubConfig {
  clientId: string;
  clientSecret: string;
  /** The web origin people sign in at: https://github.com or a GitHub Enterprise Server's origin. */
  baseUrl: string;
  /** The REST API root: https://api.github.com, or `<baseUrl>/api/v3` on GitHub Enterprise Server. */
  apiUrl: string;
  /** The button's label ("Sign in with …"). */
  label: string;
  /** Plain-HTTP servers are refused except when this is set (tests and local development). */
  allowHttp: boolean;
}

export const GITHUB_DOT_COM = "https://github.com";

export function githubConfigFromEnv(env: Record<string, string | undefined>): GitHubConfig | undefined {
  const clientId = env.REQLIX_GITHUB_CLIENT_ID?.trim();
  const clientSecret = env.REQLIX_GITHUB_CLIENT_SECRET?.trim();
  const base = env.REQLIX_GITHUB_URL?.trim();
  if (!clientId && !clientSecret && !base) return undefined;
  const missing = [
    ["REQLIX_GITHUB_CLIENT_ID", clientId],
    ["REQLIX_GITHUB_CLIENT_SECRET", clientSecret],
  ]
    .filter(([, v]) => !v)
    .map(([k]) => k);
  if (missing.length > 0) {
    throw new Error(
      `Sign-in with GitHub needs ${missing.join(" and ")} as well (or none of the REQLIX_GITHUB_* variables); ` +
        "both come from the OAuth app (GitHub → Settings → Developer settings → OAuth Apps).",
    );
  }
  const allowHttp = env.REQLIX_GITHUB_ALLOW_HTTP === "true";
  const baseUrl = base ? originOf(base, allowHttp) : GITHUB_DOT_COM;
  const isDotCom = new URL(baseUrl).hostname === "github.com";
  return {
    clientId: clientId as string,
    clientSecret: clientSecret as string,
    baseUrl,
    apiUrl: isDotCom ? "https://api.github.com" : `${baseUrl}/api/v3`,
    label: isDotCom ? "GitHub" : `GitHub (${new URL(baseUrl).host})`,
    allowHttp,
  };
}

/** The server's origin: a URL with a path, query or fragment would not say where `/login/oauth` lives. */
function originOf(text: string, allowHttp: boolean): string {
  const example = "like https://github.example.com";
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`REQLIX_GITHUB_URL must be the GitHub server's URL, ${example}, got "${text}".`);
  }
  if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:")) {
    throw new Error(`REQLIX_GITHUB_URL must be https://, ${example} (got "${text}").`);
  }
  if (url.username || url.password) {
    throw new Error(
      `REQLIX_GITHUB_URL must not carry credentials: give the server's origin only, ${example}.`,
    );
  }
  if (url.pathname !== "/" || url.search || url.hash) {
    throw new Error(
      `REQLIX_GITHUB_URL must be the server's origin only, ${example}, without a path or query (got "${text}").`,
    );
  }
  return url.origin;
}

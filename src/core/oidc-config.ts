/**
 * The upstream OpenID Connect provider (issue 12 item 4), from the environment: any issuer found by
 * discovery (`<issuer>/.well-known/openid-configuration`), e.g. https://accounts.google.com. All three
 * variables or none; a partial setting is refused at start, naming what is missing.
 */
export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The button's label ("Sign in with …"); default the issuer's host name. */
  label: string;
  /** Plain-HTTP issuers are refused except when this is set (tests and local development). */
  allowHttp: boolean;
}

export function oidcConfigFromEnv(env: Record<string, string | undefined>): OidcConfig | undefined {
  const issuer = env.REQLIX_OIDC_ISSUER?.trim();
  const clientId = env.REQLIX_OIDC_CLIENT_ID?.trim();
  const clientSecret = env.REQLIX_OIDC_CLIENT_SECRET?.trim();
  if (!issuer && !clientId && !clientSecret) return undefined;
  const missing = [
    ["REQLIX_OIDC_ISSUER", issuer],
    ["REQLIX_OIDC_CLIENT_ID", clientId],
    ["REQLIX_OIDC_CLIENT_SECRET", clientSecret],
  ]
    .filter(([, v]) => !v)
    .map(([k]) => k);
  if (missing.length > 0) {
    throw new Error(
      `Upstream sign-in needs ${missing.join(" and ")} as well (or none of the REQLIX_OIDC_* variables).`,
    );
  }
  let url: URL;
  try {
    url = new URL(issuer as string);
  } catch {
    throw new Error(`REQLIX_OIDC_ISSUER must be a URL like https://accounts.google.com, got "${issuer}".`);
  }
  const allowHttp = env.REQLIX_OIDC_ALLOW_HTTP === "true";
  if (url.protocol !== "https:" && !allowHttp) {
    throw new Error(`REQLIX_OIDC_ISSUER must be https:// (got "${issuer}").`);
  }
  return {
    issuer: issuer as string,
    clientId: clientId as string,
    clientSecret: clientSecret as string,
    label: env.REQLIX_OIDC_LABEL?.trim() || url.hostname,
    allowHttp,
  };
}

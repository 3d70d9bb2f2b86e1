/**
 * REQLIX_GITHUB_*: github.com by default, GitHub Enterprise Server by its URL (API under `/api/v3`), and
 * every partial or bad setting refused with a message naming the variable (and never echoing the secret).
 */
import { describe, expect, it } from "vitest";
import { githubConfigFromEnv } from "../../src/core/github-config.js";

const PAIR = { REQLIX_GITHUB_CLIENT_ID: "Iv1.abc", REQLIX_GITHUB_CLIENT_SECRET: "s3cret-value" };

describe("githubConfigFromEnv", () => {
  it("is off without any REQLIX_GITHUB_* variable", () => {
    expect(githubConfigFromEnv({})).toBeUndefined();
    expect(githubConfigFromEnv({ REQLIX_GITHUB_CLIENT_ID: "  " })).toBeUndefined();
  });

  it("github.com and its API by default", () => {
    expect(githubConfigFromEnv(PAIR)).toEqual({
      clientId: "Iv1.abc",
      clientSecret: "s3cret-value",
      baseUrl: "https://github.com",
      apiUrl: "https://api.github.com",
      label: "GitHub",
      allowHttp: false,
    });
    expect(githubConfigFromEnv({ ...PAIR, REQLIX_GITHUB_URL: "https://github.com/" })?.apiUrl).toBe(
      "https://api.github.com",
    );
  });

  it("GitHub Enterprise Server: the API at <url>/api/v3, the host in the button", () => {
    const config = githubConfigFromEnv({ ...PAIR, REQLIX_GITHUB_URL: "https://github.example.com/" });
    expect(config).toMatchObject({
      baseUrl: "https://github.example.com",
      apiUrl: "https://github.example.com/api/v3",
      label: "GitHub (github.example.com)",
    });
  });

  it("refuses a partial setting, naming what is missing", () => {
    expect(() => githubConfigFromEnv({ REQLIX_GITHUB_CLIENT_ID: "Iv1.abc" })).toThrow(
      /needs REQLIX_GITHUB_CLIENT_SECRET as well/,
    );
    expect(() => githubConfigFromEnv({ REQLIX_GITHUB_CLIENT_SECRET: "s3cret-value" })).toThrow(
      /needs REQLIX_GITHUB_CLIENT_ID as well/,
    );
    expect(() => githubConfigFromEnv({ REQLIX_GITHUB_URL: "https://github.example.com" })).toThrow(
      /needs REQLIX_GITHUB_CLIENT_ID and REQLIX_GITHUB_CLIENT_SECRET as well/,
    );
  });

  it("refuses a URL that is not an https origin, naming REQLIX_GITHUB_URL", () => {
    for (const [url, pattern] of [
      ["github.example.com", /REQLIX_GITHUB_URL must be the GitHub server's URL/],
      ["http://github.example.com", /REQLIX_GITHUB_URL must be https:\/\//],
      ["ftp://github.example.com", /REQLIX_GITHUB_URL must be https:\/\//],
      ["https://github.example.com/api/v3", /origin only.*without a path/],
      ["https://github.example.com/?x=1", /origin only/],
    ] as const) {
      expect(() => githubConfigFromEnv({ ...PAIR, REQLIX_GITHUB_URL: url })).toThrow(pattern);
    }
    const withCredentials = () =>
      githubConfigFromEnv({ ...PAIR, REQLIX_GITHUB_URL: "https://me:hunter2@github.example.com" });
    expect(withCredentials).toThrow(/must not carry credentials/);
    expect(withCredentials).not.toThrow(/hunter2/);
    // Plain http only when asked for (tests, local development).
    expect(
      githubConfigFromEnv({
        ...PAIR,
        REQLIX_GITHUB_URL: "http://127.0.0.1:9",
        REQLIX_GITHUB_ALLOW_HTTP: "true",
      }),
    ).toMatchObject({ apiUrl: "http://127.0.0.1:9/api/v3", allowHttp: true });
  });
});

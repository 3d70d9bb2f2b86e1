import { describe, expect, it } from "vitest";
import { parseBridgeArgs, runBridgeCli } from "../../../src/local/bridge/cli.js";

async function run(argv: string[], env: Record<string, string> = {}) {
  let out = "";
  let err = "";
  const code = await runBridgeCli("push", argv, {
    cwd: "/nonexistent-project",
    env,
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

describe("reqlix-mcp push|pull flags", () => {
  it("takes --url, --token, --workspace (also as --flag=value), --force, --json and --help", () => {
    expect(parseBridgeArgs("push", ["--url=http://h", "--token", "t", "--workspace", "w", "--json"])).toEqual(
      {
        url: "http://h",
        token: "t",
        workspace: "w",
        force: false,
        json: true,
        help: false,
      },
    );
    expect(parseBridgeArgs("pull", ["-h"]).help).toBe(true);
    expect(parseBridgeArgs("push", ["--force"]).force).toBe(true);
  });

  it("refuses unknown flags with did-you-mean, repeats, missing values and stray words (exit 2)", async () => {
    const typo = await run(["--workspce", "w"]);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain("unknown option --workspce. Did you mean --workspace?");
    expect((await run(["--url", "http://a", "--url", "http://b"])).err).toContain("--url is given twice");
    expect((await run(["--token"])).err).toContain("--token needs a value");
    expect((await run(["--token", "--json"])).err).toContain("--token needs a value");
    expect((await run(["extra"])).err).toContain('unexpected argument "extra"');
    expect((await run(["--json=yes"])).err).toContain("--json takes no value");
  });

  it("names every missing setting and never prints the token", async () => {
    const missing = await run([]);
    expect(missing.code).toBe(2);
    for (const v of ["REQLIX_URL", "REQLIX_TOKEN", "REQLIX_WORKSPACE"]) expect(missing.err).toContain(v);
    const secret = "rqx_SECRETsecretSECRETsecret0123456789";
    const bad = await run(["--url", "ftp://user:pw@h", "--workspace", "Not A Slug"], {
      REQLIX_TOKEN: secret,
    });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("--url must be an http(s) URL");
    expect(bad.err).toContain("is not a workspace slug");
    expect(bad.err).not.toContain(secret);
  });

  it("prints its help (exit 0)", async () => {
    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("Exit codes: 0 done, 1 could not finish, 2 bad usage, 3 conflict");
  });
});

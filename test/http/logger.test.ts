/** The JSON-lines logger: one object per line, levels filtered, tokens and secret-named fields redacted. */
import { describe, expect, it } from "vitest";
import { generateToken } from "../../src/core/tokens.js";
import { createJsonLogger, redactText } from "../../src/http/logger.js";

describe("createJsonLogger", () => {
  it("writes one JSON object per line with time, level, msg and fields; drops levels below the minimum", () => {
    const lines: string[] = [];
    const clock = () => new Date("2026-01-02T03:04:05.678Z");
    const logger = createJsonLogger({ write: (l) => lines.push(l), level: "info", clock });
    logger.log("debug", "hidden");
    logger.log("warn", "visible", { requestId: "r-1", n: 3 });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toEqual({
      time: "2026-01-02T03:04:05.678Z",
      level: "warn",
      msg: "visible",
      requestId: "r-1",
      n: 3,
    });
  });

  it("redacts tokens anywhere (message, nested fields, errors) and fields named like secrets", () => {
    const token = generateToken();
    const lines: string[] = [];
    const logger = createJsonLogger({ write: (l) => lines.push(l) });
    logger.log("error", `failed for ${token}`, {
      header: `Bearer ${token}`,
      nested: { list: [`x ${token} y`], authorization: "Basic dXNlcjpwYXNz" },
      password: "hunter2",
      error: new Error(`bad token ${token}`),
      tokenId: 42,
    });
    const out = lines.join("\n");
    expect(out).not.toContain(token.slice(4));
    expect(out).not.toContain("hunter2");
    expect(out).not.toContain("dXNlcjpwYXNz");
    const entry = JSON.parse(lines[0] as string);
    expect(entry.msg).toBe("failed for rqx_[REDACTED]");
    expect(entry.header).toBe("Bearer [REDACTED]");
    expect(entry.nested.list).toEqual(["x rqx_[REDACTED] y"]);
    expect(entry.error).toEqual({ name: "Error", message: "bad token rqx_[REDACTED]" });
    expect(entry.tokenId).toBe(42); // ids are not secrets
  });

  it("never throws on unserializable fields", () => {
    const lines: string[] = [];
    const logger = createJsonLogger({ write: (l) => lines.push(l) });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    logger.log("info", "cyclic", { cyclic, big: 10n });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string).msg).toBe("cyclic");
  });

  it("redactText handles several tokens and Bearer values of any scheme case", () => {
    expect(redactText("a rqx_abc b rqx_DEF c")).toBe("a rqx_[REDACTED] b rqx_[REDACTED] c");
    expect(redactText("authorization: bearer xyz.123")).toBe("authorization: bearer [REDACTED]");
  });
});

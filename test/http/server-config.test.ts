/** `npm start`'s configuration from the environment: defaults, lists, loopback detection, named errors. */
import { describe, expect, it } from "vitest";
import { isDomainError } from "../../src/core/errors.js";
import { displayDbUrl, parseServerConfig } from "../../src/core/server-config.js";
import { generateToken } from "../../src/core/tokens.js";

describe("parseServerConfig", () => {
  it("has the documented defaults; empty variables count as unset", () => {
    const c = parseServerConfig({ PORT: "", REQLIX_DB_URL: "" });
    expect(c).toMatchObject({
      HOST: "127.0.0.1",
      PORT: 8787,
      REQLIX_DB_URL: "file:.data/reqlix.db",
      REQLIX_ALLOWED_ORIGINS: [],
      REQLIX_ALLOWED_HOSTS: [],
      REQLIX_LOG_LEVEL: "info",
      loopback: true,
    });
    expect(c.REQLIX_BOOTSTRAP_TOKEN).toBeUndefined();
  });

  it("reads lists, ports, the bootstrap token and whether the host is loopback", () => {
    const token = generateToken();
    const c = parseServerConfig({
      HOST: "0.0.0.0",
      PORT: "0",
      REQLIX_ALLOWED_ORIGINS: " https://a.example , https://b.example,",
      REQLIX_ALLOWED_HOSTS: "reqlix.internal",
      REQLIX_BOOTSTRAP_TOKEN: token,
      REQLIX_LOG_LEVEL: "debug",
    });
    expect(c.PORT).toBe(0);
    expect(c.loopback).toBe(false);
    expect(c.REQLIX_ALLOWED_ORIGINS).toEqual(["https://a.example", "https://b.example"]);
    expect(c.REQLIX_ALLOWED_HOSTS).toEqual(["reqlix.internal"]);
    expect(c.REQLIX_BOOTSTRAP_TOKEN).toBe(token);
    expect(parseServerConfig({ HOST: "localhost" }).loopback).toBe(true);
    expect(parseServerConfig({ HOST: "::1" }).loopback).toBe(true);
  });

  it("names every bad variable at once, never echoing a bad token", () => {
    let caught: unknown;
    try {
      parseServerConfig({ PORT: "70000", REQLIX_LOG_LEVEL: "loud", REQLIX_BOOTSTRAP_TOKEN: "rqx_short" });
    } catch (err) {
      caught = err;
    }
    expect(isDomainError(caught)).toBe(true);
    const err = caught as Error & { details: { errors: { field: string }[] } };
    expect(err.details.errors.map((e) => e.field).sort()).toEqual([
      "PORT",
      "REQLIX_BOOTSTRAP_TOKEN",
      "REQLIX_LOG_LEVEL",
    ]);
    expect(err.message).not.toContain("rqx_short");
    expect(() => parseServerConfig({ PORT: "eighty" })).toThrow(/PORT/);
  });

  it("reads the connection limits, with defaults, and names a bad one", () => {
    expect(parseServerConfig({})).toMatchObject({
      REQLIX_HEADERS_TIMEOUT_MS: 10_000,
      REQLIX_REQUEST_TIMEOUT_MS: 30_000,
      REQLIX_KEEP_ALIVE_TIMEOUT_MS: 5_000,
      REQLIX_MAX_CONNECTIONS: 1_000,
      REQLIX_AUDIT_FLUSH_MS: 50,
    });
    expect(
      parseServerConfig({
        REQLIX_HEADERS_TIMEOUT_MS: "2000",
        REQLIX_REQUEST_TIMEOUT_MS: "4000",
        REQLIX_KEEP_ALIVE_TIMEOUT_MS: "1500",
        REQLIX_MAX_CONNECTIONS: "64",
        REQLIX_AUDIT_FLUSH_MS: "0",
      }),
    ).toMatchObject({
      REQLIX_HEADERS_TIMEOUT_MS: 2000,
      REQLIX_REQUEST_TIMEOUT_MS: 4000,
      REQLIX_KEEP_ALIVE_TIMEOUT_MS: 1500,
      REQLIX_MAX_CONNECTIONS: 64,
      REQLIX_AUDIT_FLUSH_MS: 0,
    });
    for (const [name, value] of [
      ["REQLIX_AUDIT_FLUSH_MS", "-1"],
      ["REQLIX_MAX_CONNECTIONS", "0"],
      ["REQLIX_MAX_CONNECTIONS", "many"],
      ["REQLIX_REQUEST_TIMEOUT_MS", "1.5"],
      ["REQLIX_KEEP_ALIVE_TIMEOUT_MS", "-1"],
      ["REQLIX_HEADERS_TIMEOUT_MS", "99999999999"],
    ] as const) {
      expect(() => parseServerConfig({ [name]: value }), `${name}=${value}`).toThrow(new RegExp(name));
    }
    // The headers are part of the request: a longer headers timeout than request timeout is a mistake.
    expect(() =>
      parseServerConfig({ REQLIX_HEADERS_TIMEOUT_MS: "9000", REQLIX_REQUEST_TIMEOUT_MS: "5000" }),
    ).toThrow(/REQLIX_HEADERS_TIMEOUT_MS must not exceed REQLIX_REQUEST_TIMEOUT_MS/);
  });

  it("takes an IP address or a host name as HOST, and names anything else", () => {
    for (const host of ["0.0.0.0", "::", "::1", "[::1]", "fe80::1%eth0", "localhost", "reqlix.internal"]) {
      expect(parseServerConfig({ HOST: host }).HOST).toBe(host);
    }
    for (const host of ["http://0.0.0.0", "localhost:8787", "a b", "/tmp/sock", "-host"]) {
      expect(() => parseServerConfig({ HOST: host }), host).toThrow(
        /HOST must be an IP address or a host name/,
      );
    }
  });

  it("displayDbUrl drops credentials and query strings", () => {
    expect(displayDbUrl("libsql://db-org.turso.io?authToken=secret")).toBe("libsql://db-org.turso.io");
    expect(displayDbUrl("https://user:pass@sqld.example:8080/")).toBe("https://sqld.example:8080/");
    expect(displayDbUrl("file:.data/reqlix.db?mode=rw")).toBe("file:.data/reqlix.db");
    expect(displayDbUrl(":memory:")).toBe(":memory:");
  });
});

/**
 * src/worker.ts's reading of its bindings, in Node (the same module workerd runs; the real-Worker test
 * covers the runtime). A misconfigured Worker must say which binding to fix.
 */
import { describe, expect, it } from "vitest";
import { MemoryRateLimiter } from "../../src/http/rate-limit-memory.js";
import worker, { noSchemaValidation, workerDeps } from "../../src/worker.js";

const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;

describe("worker bindings", () => {
  it("answers 500 naming LIBSQL_URL when it is missing, without caching the failure", async () => {
    const request = new Request("http://localhost/healthz") as Parameters<typeof worker.fetch>[0];
    const res = await worker.fetch(request, {}, ctx);
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe("misconfigured");
    expect(body.message).toContain("LIBSQL_URL is not set");
    expect(body.message).toContain("wrangler secret put LIBSQL_URL");
  });

  it("refuses a file: URL (a Worker cannot open files) and a bad REQLIX_RATE_LIMIT", () => {
    expect(() => workerDeps({ LIBSQL_URL: "file:.data/reqlix.db" })).toThrow(
      /libsql:\/\/, https:\/\/ or http:\/\//,
    );
    expect(() => workerDeps({ LIBSQL_URL: "http://127.0.0.1:1", REQLIX_RATE_LIMIT: "lots" })).toThrow(
      /REQLIX_RATE_LIMIT must be a positive integer/,
    );
  });

  it("builds deps with the Workers-safe validator, the allowed origins and a per-isolate limiter", async () => {
    const deps = workerDeps({
      LIBSQL_URL: " http://127.0.0.1:1 ",
      REQLIX_ALLOWED_ORIGINS: "https://a.example.com, https://b.example.com,",
      REQLIX_RATE_LIMIT: "2",
    });
    try {
      // Not ajv (workerd forbids its `new Function`) and no validator code at all: the SDK validates only
      // elicitation answers, which reqlix never asks for; should that change, the call says what to add.
      expect(deps.jsonSchemaValidator).toBe(noSchemaValidation);
      expect(() => deps.jsonSchemaValidator?.getValidator({ type: "string" })).toThrow(/noSchemaValidation/);
      expect(deps.allowedOrigins).toEqual(["https://a.example.com", "https://b.example.com"]);
      expect(deps.rateLimiter).toBeInstanceOf(MemoryRateLimiter);
      expect((deps.rateLimiter as MemoryRateLimiter).limit).toBe(2);
      expect(deps.version).toMatch(/^\d+\.\d+\.\d+/);
    } finally {
      await deps.database.close();
    }
  });

  it("limits the admin API: its own bucket in the rate-limit binding, else REQLIX_ADMIN_RATE_LIMIT per isolate", async () => {
    expect(() => workerDeps({ LIBSQL_URL: "http://127.0.0.1:1", REQLIX_ADMIN_RATE_LIMIT: "0" })).toThrow(
      /REQLIX_ADMIN_RATE_LIMIT must be a positive integer/,
    );
    const plain = workerDeps({ LIBSQL_URL: "http://127.0.0.1:1", REQLIX_ADMIN_RATE_LIMIT: "7" });
    const byDefault = workerDeps({ LIBSQL_URL: "http://127.0.0.1:1" });
    const keys: string[] = [];
    const binding = {
      async limit({ key }: { key: string }) {
        keys.push(key);
        return { success: false };
      },
    } as unknown as RateLimit;
    const bound = workerDeps({ LIBSQL_URL: "http://127.0.0.1:1", RATE_LIMITER: binding });
    try {
      expect((plain.adminRateLimiter as MemoryRateLimiter).limit).toBe(7);
      expect((byDefault.adminRateLimiter as MemoryRateLimiter).limit).toBe(300);
      expect(await bound.adminRateLimiter?.hit("admin:token:3")).toEqual({
        ok: false,
        retryAfterSeconds: 60,
      });
      expect(keys).toEqual(["admin:token:3"]);
    } finally {
      await Promise.all([plain, byDefault, bound].map((d) => d.database.close()));
    }
  });

  it("reads the upstream providers from its bindings: GitHub Enterprise Server and an OpenID issuer at once", async () => {
    const deps = workerDeps({
      LIBSQL_URL: "http://127.0.0.1:1",
      REQLIX_GITHUB_CLIENT_ID: "Iv1.abc",
      REQLIX_GITHUB_CLIENT_SECRET: "gh-secret",
      REQLIX_GITHUB_URL: "https://github.example.com",
      REQLIX_OIDC_ISSUER: "https://accounts.google.com",
      REQLIX_OIDC_CLIENT_ID: "reqlix.apps.googleusercontent.com",
      REQLIX_OIDC_CLIENT_SECRET: "google-secret",
    });
    try {
      expect(deps.github).toMatchObject({ apiUrl: "https://github.example.com/api/v3", clientId: "Iv1.abc" });
      expect(deps.oidc).toMatchObject({
        issuer: "https://accounts.google.com",
        label: "accounts.google.com",
      });
    } finally {
      await deps.database.close();
    }
    expect(() =>
      workerDeps({ LIBSQL_URL: "http://127.0.0.1:1", REQLIX_GITHUB_CLIENT_SECRET: "gh-secret" }),
    ).toThrow(/needs REQLIX_GITHUB_CLIENT_ID/);
  });
});

/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`, server mode) against `/mcp` of the hosted
 * app on Node, behind the real auth and edge middleware, once per protocol revision with exactly the
 * scenarios that revision requires (`--requirements 2025-11-25`, `--requirements 2026-07-28`): the 2025 era
 * through initialize, 2026-07-28 through server/discover and per-request envelopes, on the same URL. The
 * suite sends no headers of its own, so a local proxy adds the bearer token and keeps the Host and Origin
 * the suite sends (its dns-rebinding scenario sends a foreign Host and Origin, which the app must refuse).
 *
 * 1. With the test-only fixture registry added through createApp's deps: every scenario passes except the
 *    ones in expected-failures/<revision>.yaml, each with a reason.
 * 2. Against the production registry alone: the scenarios that need no fixtures pass, in both eras.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostedContext } from "../../src/hosted/context.js";
import { conformanceRegistry } from "../fixtures/conformance-registry.js";
import {
  type ConformanceRun,
  describeFailures,
  type ExpectedFailures,
  expectedFailuresFile,
  failedChecks,
  REVISIONS,
  type Revision,
  readExpectedFailures,
  runConformance,
} from "../helpers/conformance.js";
import { type HostedServer, startHosted } from "../helpers/hosted.js";
import { type AuthProxy, startAuthProxy } from "../helpers/proxy.js";
import { FIXTURE_FREE, FIXTURE_FREE_MODERN } from "./fixture-free.js";

let out: string;
const expected = new Map<Revision, ExpectedFailures>();

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), "reqlix-conformance-"));
  for (const revision of REVISIONS)
    expected.set(revision, await readExpectedFailures(expectedFailuresFile(revision)));
});

afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

describe("expected-failures/<revision>.yaml", () => {
  for (const revision of REVISIONS) {
    it(`${revision}: gives a reason for every entry and lists every reason's scenario`, () => {
      const e = expected.get(revision) as ExpectedFailures;
      expect(e.server.length).toBeGreaterThan(0);
      for (const name of e.server)
        expect(e.reasons[name], `reason for ${name}`).toMatch(/^(stateless|registry model): .{20,}/);
      expect(Object.keys(e.reasons).sort()).toEqual([...e.server].sort());
      const fixtureFree = revision === "2026-07-28" ? FIXTURE_FREE_MODERN : FIXTURE_FREE;
      for (const name of fixtureFree) expect(e.server).not.toContain(name);
    });
  }
});

describe("conformance suite against /mcp on Node with the fixture registry, per revision", () => {
  let hosted: HostedServer;
  let proxy: AuthProxy;
  const runs = new Map<Revision, ConformanceRun>();

  beforeAll(async () => {
    hosted = await startHosted({ extraRegistries: [conformanceRegistry<HostedContext>()] });
    const token = await hosted.createToken("conformance", "editor");
    proxy = await startAuthProxy({ target: hosted.url, token });
    for (const revision of REVISIONS) {
      runs.set(
        revision,
        await runConformance({
          url: `${proxy.url}/mcp`,
          outputDir: join(out, `node-fixtures-${revision}`),
          requirements: revision,
          expectedFailures: expectedFailuresFile(revision),
        }),
      );
    }
  }, 300_000);

  afterAll(async () => {
    await proxy?.close();
    await hosted?.close();
  });

  for (const revision of REVISIONS) {
    describe(revision, () => {
      const run = () => runs.get(revision) as ConformanceRun;
      const baseline = () => expected.get(revision) as ExpectedFailures;

      it("runs every scenario the revision requires", () => {
        expect(run().scenarios.size, run().output).toBeGreaterThanOrEqual(
          revision === "2026-07-28" ? 45 : 30,
        );
      });

      it("passes every scenario that is not an expected failure", () => {
        const unexpected = [...run().scenarios]
          .filter(([name, checks]) => !baseline().server.includes(name) && failedChecks(checks).length > 0)
          .map(([n]) => n);
        expect(unexpected, describeFailures(run().scenarios, unexpected)).toEqual([]);
      });

      it("still fails every expected failure (a stale entry must be removed)", () => {
        const stale = baseline().server.filter(
          (name) => failedChecks(run().scenarios.get(name) ?? []).length === 0,
        );
        expect(stale).toEqual([]);
      });

      it("exits 0 with the baseline (the CLI's own verdict)", () => {
        expect(run().exitCode, run().output.slice(-3000)).toBe(0);
      });

      it("passes DNS-rebinding protection: a foreign Host/Origin is refused, localhost accepted", () => {
        const checks = run().scenarios.get("dns-rebinding-protection") ?? [];
        expect(checks.map((c) => `${c.id}:${c.status}`).sort()).toEqual([
          "localhost-host-rebinding-rejected:SUCCESS",
          "localhost-host-valid-accepted:SUCCESS",
        ]);
      });
    });
  }

  it("2026-07-28: the revision's own scenarios pass (headers, caching, resource not found)", () => {
    const run = runs.get("2026-07-28") as ConformanceRun;
    for (const name of [
      "http-header-validation",
      "caching",
      "sep-2164-resource-not-found",
      "json-schema-2020-12",
    ]) {
      const checks = run.scenarios.get(name) ?? [];
      expect(checks.length, `${name} ran`).toBeGreaterThan(0);
      expect(describeFailures(run.scenarios, [name])).toBe("");
    }
  });

  it("went through the real auth: every request carried the token, none was refused with 401", () => {
    expect(proxy.seen.length).toBeGreaterThan(60);
    expect(proxy.seen.filter((r) => r.status === 401)).toEqual([]);
  });
});

describe("fixture-free scenarios against the production registry", () => {
  let hosted: HostedServer;
  let proxy: AuthProxy;
  const runs = new Map<string, ConformanceRun>();
  const cases = [
    ...FIXTURE_FREE.map((scenario) => ({ scenario, specVersion: "2025-11-25" })),
    ...FIXTURE_FREE_MODERN.map((scenario) => ({ scenario, specVersion: "2026-07-28" })),
  ];

  beforeAll(async () => {
    hosted = await startHosted();
    const token = await hosted.createToken("conformance", "viewer");
    proxy = await startAuthProxy({ target: hosted.url, token });
    await Promise.all(
      cases.map(async ({ scenario, specVersion }) => {
        runs.set(
          `${specVersion} ${scenario}`,
          await runConformance({
            url: `${proxy.url}/mcp`,
            outputDir: join(out, `node-prod-${specVersion}-${scenario}`),
            scenario,
            specVersion,
          }),
        );
      }),
    );
  }, 180_000);

  afterAll(async () => {
    await proxy?.close();
    await hosted?.close();
  });

  for (const { scenario, specVersion } of cases) {
    it(`${specVersion} ${scenario} passes`, () => {
      const r = runs.get(`${specVersion} ${scenario}`);
      expect(r, `${scenario} ran`).toBeDefined();
      const result = r as ConformanceRun;
      expect(result.scenarios.get(scenario)?.length ?? 0, result.output).toBeGreaterThan(0);
      expect(describeFailures(result.scenarios, [scenario])).toBe("");
      expect(result.exitCode, result.output.slice(-2000)).toBe(0);
    });
  }

  it("without a token the suite is refused before any MCP handling (auth is real)", async () => {
    const bare = await startAuthProxy({ target: hosted.url, token: undefined });
    try {
      const r = await runConformance({
        url: `${bare.url}/mcp`,
        outputDir: join(out, "node-no-token"),
        scenario: "ping",
      });
      expect(r.exitCode).toBe(1);
      expect(bare.seen.some((s) => s.status === 401)).toBe(true);
    } finally {
      await bare.close();
    }
  });
});

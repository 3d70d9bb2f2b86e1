/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`, server mode, active suite) against `/mcp`
 * of the hosted app on Node, behind the real auth and edge middleware. The suite sends no headers of its
 * own, so a local proxy adds the bearer token and keeps the Host and Origin the suite sends (its
 * dns-rebinding scenario sends a foreign Host and Origin, which the app must refuse).
 *
 * 1. With the test-only fixture registry added through createApp's deps: every scenario passes except the
 *    ones in expected-failures.yaml, each with a reason.
 * 2. Against the production registry alone: the scenarios that need no fixtures pass.
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
  EXPECTED_FAILURES,
  type ExpectedFailures,
  failedChecks,
  readExpectedFailures,
  runConformance,
} from "../helpers/conformance.js";
import { type HostedServer, startHosted } from "../helpers/hosted.js";
import { type AuthProxy, startAuthProxy } from "../helpers/proxy.js";
import { FIXTURE_FREE } from "./fixture-free.js";

let out: string;
let expected: ExpectedFailures;

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), "reqlix-conformance-"));
  expected = await readExpectedFailures();
});

afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

describe("expected-failures.yaml", () => {
  it("gives a reason for every entry and lists every reason's scenario", () => {
    expect(expected.server.length).toBeGreaterThan(0);
    for (const name of expected.server)
      expect(expected.reasons[name], `reason for ${name}`).toMatch(/^(stateless|registry model): .{20,}/);
    expect(Object.keys(expected.reasons).sort()).toEqual([...expected.server].sort());
    for (const name of FIXTURE_FREE) expect(expected.server).not.toContain(name);
  });
});

describe("conformance suite against /mcp on Node with the fixture registry", () => {
  let hosted: HostedServer;
  let proxy: AuthProxy;
  let run: ConformanceRun;

  beforeAll(async () => {
    hosted = await startHosted({ extraRegistries: [conformanceRegistry<HostedContext>()] });
    const token = await hosted.createToken("conformance", "editor");
    proxy = await startAuthProxy({ target: hosted.url, token });
    run = await runConformance({
      url: `${proxy.url}/mcp`,
      outputDir: join(out, "node-fixtures"),
      expectedFailures: EXPECTED_FAILURES,
    });
  }, 180_000);

  afterAll(async () => {
    await proxy?.close();
    await hosted?.close();
  });

  it("runs the whole active suite", () => {
    expect(run.scenarios.size, run.output).toBeGreaterThanOrEqual(30);
  });

  it("passes every scenario that is not an expected failure", () => {
    const unexpected = [...run.scenarios].filter(
      ([name, checks]) => !expected.server.includes(name) && failedChecks(checks).length > 0,
    );
    expect(
      unexpected.map(([n]) => n),
      describeFailures(
        run.scenarios,
        unexpected.map(([n]) => n),
      ),
    ).toEqual([]);
  });

  it("still fails every expected failure (a stale entry must be removed)", () => {
    const stale = expected.server.filter((name) => failedChecks(run.scenarios.get(name) ?? []).length === 0);
    expect(stale).toEqual([]);
  });

  it("exits 0 with the baseline (the CLI's own verdict)", () => {
    expect(run.exitCode, run.output.slice(-3000)).toBe(0);
  });

  it("passes DNS-rebinding protection: a foreign Host/Origin is refused, localhost accepted", () => {
    const checks = run.scenarios.get("dns-rebinding-protection") ?? [];
    expect(checks.map((c) => `${c.id}:${c.status}`).sort()).toEqual([
      "localhost-host-rebinding-rejected:SUCCESS",
      "localhost-host-valid-accepted:SUCCESS",
    ]);
  });

  it("went through the real auth: every request carried the token, none was refused with 401", () => {
    expect(proxy.seen.length).toBeGreaterThan(30);
    expect(proxy.seen.filter((r) => r.status === 401)).toEqual([]);
  });
});

describe("fixture-free scenarios against the production registry", () => {
  let hosted: HostedServer;
  let proxy: AuthProxy;
  const runs = new Map<string, ConformanceRun>();

  beforeAll(async () => {
    hosted = await startHosted();
    const token = await hosted.createToken("conformance", "viewer");
    proxy = await startAuthProxy({ target: hosted.url, token });
    await Promise.all(
      FIXTURE_FREE.map(async (scenario) => {
        runs.set(
          scenario,
          await runConformance({
            url: `${proxy.url}/mcp`,
            outputDir: join(out, `node-prod-${scenario}`),
            scenario,
          }),
        );
      }),
    );
  }, 180_000);

  afterAll(async () => {
    await proxy?.close();
    await hosted?.close();
  });

  for (const scenario of FIXTURE_FREE) {
    it(`${scenario} passes`, () => {
      const r = runs.get(scenario);
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

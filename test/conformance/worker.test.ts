/**
 * The MCP conformance suite against `/mcp` of the Worker in workerd (`wrangler dev`, local libSQL endpoint),
 * behind the same auth proxy as on Node: per revision (2025-11-25 and 2026-07-28), exactly the scenarios it
 * requires against a Worker that also serves the fixture registry (test/conformance/fixture-worker.ts), with
 * the same expected failures as on Node, and the fixture-free scenarios of both eras against the production
 * Worker (src/worker.ts).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
import { type AuthProxy, startAuthProxy } from "../helpers/proxy.js";
import { type StartedWorker, startWorker } from "../helpers/workers.js";
import { FIXTURE_FREE, FIXTURE_FREE_MODERN } from "./fixture-free.js";

let out: string;
const expected = new Map<Revision, ExpectedFailures>();
let fixtureWorker: StartedWorker;
let prodWorker: StartedWorker;
const proxies: AuthProxy[] = [];
const suites = new Map<Revision, ConformanceRun>();
const single = new Map<string, ConformanceRun>();
const cases = [
  ...FIXTURE_FREE.map((scenario) => ({ scenario, specVersion: "2025-11-25" })),
  ...FIXTURE_FREE_MODERN.map((scenario) => ({ scenario, specVersion: "2026-07-28" })),
];

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), "reqlix-conformance-worker-"));
  for (const revision of REVISIONS)
    expected.set(revision, await readExpectedFailures(expectedFailuresFile(revision)));
  // Both Workers start at once: wrangler + workerd take most of this file's time.
  [fixtureWorker, prodWorker] = await Promise.all([
    startWorker({ entry: "test/conformance/fixture-worker.ts" }),
    startWorker(),
  ]);
  const fixtureProxy = await startAuthProxy({ target: fixtureWorker.url, token: fixtureWorker.token });
  const prodProxy = await startAuthProxy({ target: prodWorker.url, token: prodWorker.token });
  proxies.push(fixtureProxy, prodProxy);
  const runs = await Promise.all([
    ...REVISIONS.map((revision) =>
      runConformance({
        url: `${fixtureProxy.url}/mcp`,
        outputDir: join(out, `fixtures-${revision}`),
        requirements: revision,
        expectedFailures: expectedFailuresFile(revision),
      }),
    ),
    ...cases.map(({ scenario, specVersion }) =>
      runConformance({
        url: `${prodProxy.url}/mcp`,
        outputDir: join(out, `prod-${specVersion}-${scenario}`),
        scenario,
        specVersion,
      }),
    ),
  ]);
  for (const [i, revision] of REVISIONS.entries()) suites.set(revision, runs[i] as ConformanceRun);
  for (const [i, { scenario, specVersion }] of cases.entries())
    single.set(`${specVersion} ${scenario}`, runs[i + REVISIONS.length] as ConformanceRun);
}, 300_000);

afterAll(async () => {
  for (const p of proxies) await p.close();
  await fixtureWorker?.close();
  await prodWorker?.close();
  if (out) await rm(out, { recursive: true, force: true });
}, 60_000);

describe("conformance suite against /mcp in workerd with the fixture registry, per revision", () => {
  for (const revision of REVISIONS) {
    describe(revision, () => {
      const suite = () => suites.get(revision) as ConformanceRun;
      const baseline = () => expected.get(revision) as ExpectedFailures;

      it("runs every scenario the revision requires", () => {
        expect(suite().scenarios.size, suite().output.slice(-2000)).toBeGreaterThanOrEqual(
          revision === "2026-07-28" ? 45 : 30,
        );
      });

      it("passes every scenario that is not an expected failure, and fails every expected one", () => {
        const unexpected = [...suite().scenarios]
          .filter(([n, checks]) => !baseline().server.includes(n) && failedChecks(checks).length > 0)
          .map(([n]) => n);
        expect(
          unexpected,
          `${describeFailures(suite().scenarios, unexpected)}\n${fixtureWorker.output().slice(-3000)}`,
        ).toEqual([]);
        const stale = baseline().server.filter(
          (n) => failedChecks(suite().scenarios.get(n) ?? []).length === 0,
        );
        expect(stale).toEqual([]);
        expect(suite().exitCode, suite().output.slice(-2000)).toBe(0);
      });

      it("passes DNS-rebinding protection in workerd too", () => {
        const checks = suite().scenarios.get("dns-rebinding-protection") ?? [];
        expect(checks.map((c) => `${c.id}:${c.status}`).sort()).toEqual([
          "localhost-host-rebinding-rejected:SUCCESS",
          "localhost-host-valid-accepted:SUCCESS",
        ]);
      });
    });
  }
});

describe("fixture-free scenarios against the production Worker", () => {
  for (const { scenario, specVersion } of cases) {
    it(`${specVersion} ${scenario} passes`, () => {
      const r = single.get(`${specVersion} ${scenario}`) as ConformanceRun;
      expect(r.scenarios.get(scenario)?.length ?? 0, r.output.slice(-2000)).toBeGreaterThan(0);
      const failures = describeFailures(r.scenarios, [scenario]);
      // The Worker's log says why (e.g. "database unreachable" when the local libSQL endpoint did not answer).
      expect(failures, `${failures}\n${prodWorker.output().slice(-3000)}`).toBe("");
      expect(r.exitCode).toBe(0);
    });
  }
});

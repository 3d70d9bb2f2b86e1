/** Coverage of random citation sets equals a naive reference computed id by id. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Citation, CitationKind } from "../../../src/local/trace/citations.js";
import { computeCoverage, type RequirementInfo } from "../../../src/local/trace/coverage.js";

const IDS = ["REQ-001", "REQ-002", "REQ-003", "US-001", "G.A.1", "G.A.2", "G.B.1", "REQ-404", "G.Z.9"];

const citation = fc.record({
  id: fc.constantFrom(...IDS),
  kind: fc.constantFrom<CitationKind>("impl", "test", "doc"),
  revision: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
  line: fc.integer({ min: 1, max: 500 }),
});

const knowledge = fc.record({
  /** Local requirements (always listed, exist) and what the server says of each hosted id. */
  local: fc.subarray(["G.A.1", "G.A.2", "G.B.1"]),
  hosted: fc.dictionary(
    fc.constantFrom("REQ-001", "REQ-002", "REQ-003", "US-001", "REQ-404"),
    fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
  ),
  serverGiven: fc.boolean(),
  revisions: fc.dictionary(fc.constantFrom("G.A.1", "G.A.2", "G.B.1"), fc.integer({ min: 1, max: 4 })),
});

describe("coverage (property)", () => {
  it("equals a naive reference for random citation sets", () => {
    fc.assert(
      fc.property(fc.array(citation, { maxLength: 60 }), knowledge, (raw, k) => {
        const citations: Citation[] = raw.map((c, i) => ({
          ...c,
          form: c.id.includes("-") ? "hosted" : "reqlix",
          file: `f${i % 7}.ts`,
          column: 1,
          test_name: null,
          snippet: "",
        }));
        const universe: RequirementInfo[] = k.local.map((id) => ({
          id,
          form: "reqlix",
          exists: true,
          title: id,
          status: "Active",
          revision: k.revisions[id] ?? 1,
          category: "general",
        }));
        const info = (id: string, form: "hosted" | "reqlix"): RequirementInfo => {
          if (form === "reqlix")
            return { id, form, exists: false, title: null, status: null, revision: null, category: null };
          if (!k.serverGiven)
            return { id, form, exists: null, title: null, status: null, revision: null, category: "REQ" };
          const found = id in k.hosted;
          return {
            id,
            form,
            exists: found,
            title: null,
            status: found ? "Active" : null,
            revision: found ? (k.hosted[id] ?? null) : null,
            category: "REQ",
          };
        };
        const got = computeCoverage(citations, universe, info);

        // Reference: every id, one at a time, with plain filters.
        const exists = (id: string): boolean | null => {
          if (k.local.includes(id)) return true;
          return info(id, id.includes("-") ? "hosted" : "reqlix").exists;
        };
        const revisionOf = (id: string): number | null =>
          k.local.includes(id)
            ? (k.revisions[id] ?? 1)
            : info(id, id.includes("-") ? "hosted" : "reqlix").revision;
        const ids = [...new Set([...k.local, ...citations.map((c) => c.id)])]
          .filter((id) => exists(id) !== false)
          .sort();
        const expected = ids.map((id) => {
          const mine = citations.filter((c) => c.id === id);
          const impl = mine.filter((c) => c.kind === "impl").length;
          const test = mine.filter((c) => c.kind === "test").length;
          const doc = mine.filter((c) => c.kind === "doc").length;
          const rev = revisionOf(id);
          const suspect = mine.filter((c) => c.revision !== null && rev !== null && c.revision < rev).length;
          const coverage = impl && test ? "covered" : impl ? "impl_only" : test ? "test_only" : "uncovered";
          return { id, impl, test, doc, suspect, coverage, exists: exists(id) };
        });
        expect(
          got.rows.map(({ id, impl, test, doc, suspect, coverage, exists }) => ({
            id,
            impl,
            test,
            doc,
            suspect,
            coverage,
            exists,
          })),
        ).toEqual(expected);
        const orphans = citations.filter((c) => exists(c.id) === false);
        expect(got.orphans).toEqual(orphans);
        expect(got.summary.orphan).toBe(orphans.length);
        expect(got.summary.suspect).toBe(expected.reduce((n, r) => n + r.suspect, 0));
        for (const s of ["covered", "impl_only", "test_only", "uncovered"] as const)
          expect(got.summary[s]).toBe(expected.filter((r) => r.coverage === s).length);
        expect(got.summary.unknown).toBe(expected.filter((r) => r.exists === null).length);
      }),
      { numRuns: 300 },
    );
  });
});

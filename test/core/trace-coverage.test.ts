/** The coverage rules: status from impl/test counts, what "missing" means, suspect pins, status changes. */
import { describe, expect, it } from "vitest";
import {
  countStatuses,
  coverageStatus,
  isSuspect,
  lacks,
  statusChanges,
} from "../../src/core/trace-coverage.js";
import { parseTraceSnapshot } from "../../src/core/trace-snapshot.js";

describe("coverage rules", () => {
  it("covered needs an implementation and a test; doc citations cover nothing", () => {
    expect(coverageStatus({ impl: 2, test: 1 })).toBe("covered");
    expect(coverageStatus({ impl: 1, test: 0 })).toBe("impl_only");
    expect(coverageStatus({ impl: 0, test: 3 })).toBe("test_only");
    expect(coverageStatus({ impl: 0, test: 0 })).toBe("uncovered");
  });

  it("missing impl / test / any", () => {
    expect(lacks({ impl: 1, test: 0 }, "impl")).toBe(false);
    expect(lacks({ impl: 1, test: 0 }, "test")).toBe(true);
    expect(lacks({ impl: 1, test: 0 }, "any")).toBe(true);
    expect(lacks({ impl: 1, test: 1 }, "any")).toBe(false);
  });

  it("a pin older than the current revision is suspect; no pin or the current one is not", () => {
    expect(isSuspect(1, 2)).toBe(true);
    expect(isSuspect(2, 2)).toBe(false);
    expect(isSuspect(null, 5)).toBe(false);
  });

  it("counts and changes", () => {
    const before = new Map([
      ["REQ-001", "impl_only" as const],
      ["REQ-002", "uncovered" as const],
    ]);
    const now = new Map([
      ["REQ-001", "covered" as const],
      ["REQ-002", "uncovered" as const],
    ]);
    expect(countStatuses(now.values())).toEqual({ covered: 1, impl_only: 0, test_only: 0, uncovered: 1 });
    expect(statusChanges(before, now)).toEqual([
      { reference_id: "REQ-001", from: "impl_only", to: "covered" },
    ]);
  });

  it("a snapshot's ids and commit are normalized", () => {
    const s = parseTraceSnapshot({
      schema: 1,
      repository: "r",
      commit: "ABCDEF1",
      branch: null,
      scanned_at: "2026-01-02T03:04:05+02:00",
      citations: [
        {
          id: "req-12",
          revision: null,
          file: "a",
          line: 1,
          column: 1,
          kind: "test",
          test_name: "t",
          snippet: "",
        },
      ],
      commits: [{ sha: "ABCDEF1", ids: ["ac-7"], subject: "s" }],
    });
    expect(s.commit).toBe("abcdef1");
    expect(s.citations[0]?.id).toBe("REQ-012");
    expect(s.commits[0]?.ids).toEqual(["AC-007"]);
  });
});

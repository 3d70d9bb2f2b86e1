/** Reference ids: formatting, case-insensitive normalization, and telling kinds apart. */
import { describe, expect, test } from "vitest";
import { formatReference, kindOfReference, normalizeReference } from "../../src/core/references.js";

describe("reference ids", () => {
  test("are zero-padded to three digits and grow past them", () => {
    expect(formatReference("EP", 1)).toBe("EP-001");
    expect(formatReference("US", 47)).toBe("US-047");
    expect(formatReference("REQ", 1000)).toBe("REQ-1000");
  });

  test("normalize any case, spacing and padding to the stored form", () => {
    expect(normalizeReference("US", "us-47")).toBe("US-047");
    expect(normalizeReference("US", " Us-0047 ")).toBe("US-047");
    expect(normalizeReference("REQ", "req-1234")).toBe("REQ-1234");
  });

  test("refuse other prefixes and malformed ids", () => {
    for (const bad of ["USER-047", "US-", "US-ABC", "047", "US047", "US-4-7", "REQ-1", ""]) {
      expect(normalizeReference("US", bad), bad).toBeUndefined();
    }
    expect(normalizeReference("US", "US-99999999999999999999")).toBeUndefined();
  });

  test("know which kind an id names", () => {
    expect(kindOfReference("ep-2")).toEqual({ kind: "epic", reference: "EP-002" });
    expect(kindOfReference("US-047")).toEqual({ kind: "user_story", reference: "US-047" });
    expect(kindOfReference("req-48")).toEqual({ kind: "requirement", reference: "REQ-048" });
    expect(kindOfReference("AC-7")).toEqual({ kind: "acceptance_criterion", reference: "AC-007" });
    expect(kindOfReference("login form")).toBeUndefined();
    expect(kindOfReference("DOC-1")).toBeUndefined();
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ID_PATTERN, isId, KIND_PREFIX } from "../../../src/local/ixchel/kinds.js";

describe("isId", () => {
  it("accepts exactly what ID_PATTERN matches, on generated strings near and far from ids", () => {
    const prefix = fc.constantFrom(
      ...Object.values(KIND_PREFIX),
      "de",
      "decc",
      "DEC",
      "idea",
      "ide",
      "sr",
      "se",
      "x",
    );
    const hex = fc
      .array(fc.constantFrom(..."0123456789abcdefABCFgz-é"), { maxLength: 14 })
      .map((c) => c.join(""));
    const near = fc.tuple(prefix, fc.constantFrom("-", "--", "_", ""), hex).map(([p, d, h]) => p + d + h);
    fc.assert(
      fc.property(fc.oneof(near, fc.string({ maxLength: 20 })), (value) => {
        expect(isId(value), JSON.stringify(value)).toBe(ID_PATTERN.test(value));
      }),
      { numRuns: 20_000 },
    );
  });

  it("takes only strings", () => {
    expect(isId(undefined)).toBe(false);
    expect(isId(123456)).toBe(false);
    expect(isId("dec-1a2b3c")).toBe(true);
    expect(isId("idea-1a2b3c4d5e6f")).toBe(true);
    expect(isId("idea-1a2b3c4d5e6f7")).toBe(false);
  });
});

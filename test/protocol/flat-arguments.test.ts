/**
 * parseToolInput's fast path (compile.ts): `flatKnownArguments` may only say yes where the full walk
 * (`unknownArguments`) would find nothing, so skipping the walk never hides an unknown argument.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { flatKnownArguments, unknownArguments } from "../../src/protocol/argument-errors.js";

const strict = z.object({
  epic_id: z.string(),
  limit: z.number().int().optional(),
  done: z.boolean().optional(),
});
const loose = z.object({ epic_id: z.string() }).loose();
const nested = z.object({
  filter: z.object({ status: z.string() }).optional(),
  epic_id: z.string().optional(),
});

const values: unknown[] = [
  { epic_id: "EP-001" },
  { epic_id: "EP-001", limit: 5, done: null },
  { epic_id: "EP-001", extra: 1 },
  { epicId: "EP-001" },
  { filter: { status: "Draft" } },
  { filter: { status: "Draft", bogus: true } },
  { epic_id: ["EP-001"] },
  JSON.parse('{"__proto__": 1, "epic_id": "EP-001"}'),
  {},
  "EP-001",
  null,
  [],
];

describe("flatKnownArguments", () => {
  for (const [name, schema] of Object.entries({ strict, loose, nested })) {
    it(`never says flat where the walk finds an unknown argument (${name} schema)`, () => {
      for (const value of values) {
        if (flatKnownArguments(schema, value)) expect(unknownArguments(schema, value)).toEqual([]);
      }
    });
  }

  it("takes the common flat call and leaves anything unknown or nested to the walk", () => {
    expect(flatKnownArguments(strict, { epic_id: "EP-001", limit: 5 })).toBe(true);
    expect(flatKnownArguments(strict, { epic_id: "EP-001", extra: 1 })).toBe(false);
    expect(flatKnownArguments(loose, { epic_id: "EP-001", extra: 1 })).toBe(true);
    expect(flatKnownArguments(nested, { filter: { status: "Draft" } })).toBe(false);
    expect(flatKnownArguments(strict, JSON.parse('{"__proto__": 1}'))).toBe(false);
    expect(flatKnownArguments(strict, "EP-001")).toBe(false);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { prefixCandidates, uniquePrefix } from "../../../src/local/reqlix/prefix.js";

function first(name: string, kind: "chapter" | "category", n: number): string[] {
  const out: string[] = [];
  for (const c of prefixCandidates(name, kind)) {
    out.push(c);
    if (out.length === n) break;
  }
  return out;
}

describe("index prefixes (G.F.4)", () => {
  it("gives the spec's examples", () => {
    expect(uniquePrefix("general", "category", [])).toBe("G");
    expect(uniquePrefix("General Requirements", "chapter", [])).toBe("G");
    expect(uniquePrefix("reqlix_get_instructions", "chapter", ["G"])).toBe("GI");
    expect(uniquePrefix("reqlix_get_instructions", "chapter", [])).toBe("GI");
    expect(uniquePrefix("testing", "category", ["G"])).toBe("T");
    expect(uniquePrefix("Unit Tests", "chapter", [])).toBe("U");
  });

  it("reproduces the spec file's chapter prefixes when its chapters get prefixes in order", () => {
    const chapters = [
      ["General Requirements", "G"],
      ["Parameter Constraints", "P"],
      ["Requirements Storage Format", "R"], // the spec says F: an editorial choice no letter rule yields
      ["Common Implementation Requirements", "C"],
      ["reqlix_get_instructions", "GI"],
      ["reqlix_get_categories", "GC"],
      ["reqlix_get_chapters", "GCH"],
      ["reqlix_get_requirements", "GR"],
      ["reqlix_get_requirement", "GRQ"],
      ["reqlix_insert_requirement", "IR"],
      ["reqlix_update_requirement", "UR"],
    ] as const;
    const taken: string[] = [];
    for (const [name, expected] of chapters) {
      const p = uniquePrefix(name, "chapter", taken);
      expect(p, name).toBe(expected);
      taken.push(p);
    }
  });

  it("extends with initials, then consonants of the last word, then numbers", () => {
    expect(first("General Requirements", "chapter", 5)).toEqual(["G", "GR", "GRQ", "GRQR", "GRQRM"]);
    expect(first("glossary", "category", 3)).toEqual(["G", "GL", "GLS"]);
    expect(first("code_quality", "category", 3)).toEqual(["C", "CQ", "CQL"]);
    expect(first("ai", "category", 3)).toEqual(["A", "A2", "A3"]);
  });

  it("gives `glossary` GL beside `general` (G), leaving general's prefix alone", () => {
    expect(uniquePrefix("glossary", "category", ["G"])).toBe("GL");
  });

  it("compares taken prefixes case-insensitively", () => {
    expect(uniquePrefix("testing", "category", ["t"])).toBe("TS");
  });

  it("handles other scripts", () => {
    expect(uniquePrefix("Требования к тестам", "chapter", [])).toBe("Т");
    expect(uniquePrefix("Требования к тестам", "chapter", ["Т"])).toBe("ТК");
  });

  it("takes first letters, skipping digits and other non-letters (hardening #17)", () => {
    expect(uniquePrefix("123test", "category", [])).toBe("T");
    expect(uniquePrefix("2024 Roadmap", "chapter", [])).toBe("R");
    expect(uniquePrefix("2024 Roadmap", "chapter", ["R"])).toBe("RD");
    expect(uniquePrefix("reqlix_2nd_pass", "chapter", [])).toBe("NP");
    expect(uniquePrefix("v2 api", "category", [])).toBe("V");
    expect(first("Q3 Goals", "chapter", 3)).toEqual(["Q", "QG", "QGL"]);
    expect(first("test2case", "category", 3)).toEqual(["T", "TS", "TST"]);
  });

  it("refuses a name with no letter at all, naming the rule", () => {
    for (const name of ["!!!", "2024", "1_2_3", "reqlix_42"]) {
      expect(() => uniquePrefix(name, name.startsWith("reqlix_") ? "chapter" : "category", [])).toThrow(
        /no letter.*first letter.*G\.F\.4/,
      );
    }
  });

  it("always returns a prefix of letters and digits that is not taken", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.array(fc.stringMatching(/^[A-Z0-9]{1,4}$/), { maxLength: 40 }),
        fc.constantFrom("chapter" as const, "category" as const),
        (name, taken, kind) => {
          const base = kind === "chapter" && name.startsWith("reqlix_") ? name.slice(7) : name;
          if (!/\p{L}/u.test(base)) {
            expect(() => uniquePrefix(name, kind, taken)).toThrow(/G\.F\.4/);
            return;
          }
          const p = uniquePrefix(name, kind, taken);
          expect(p).toMatch(/^\p{L}[\p{L}\p{N}]*$/u);
          expect(taken.map((t) => t.toUpperCase())).not.toContain(p.toUpperCase());
        },
      ),
    );
  });
});

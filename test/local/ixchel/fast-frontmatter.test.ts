import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseDocument } from "yaml";
import {
  parseSimpleFrontmatter,
  parseSimpleFrontmatterAt,
} from "../../../src/local/ixchel/fast-frontmatter.js";
import { entityText } from "./repo-fixture.js";

/** What the real parser says: the data, or undefined when it reports an error or is not a mapping. */
function reference(yaml: string): unknown {
  const doc = parseDocument(yaml, { uniqueKeys: true, prettyErrors: false, strict: true });
  if (doc.errors.length > 0) return "error";
  return doc.toJS({ maxAliasCount: 100 });
}

function agrees(yaml: string): void {
  const fast = parseSimpleFrontmatter(yaml);
  if (fast === undefined) return; // left to the real parser: always safe
  expect(reference(yaml), JSON.stringify(yaml)).toEqual(yaml.trim() === "" ? null : fast);
}

const NOISE = [
  "true",
  "False",
  "null",
  "~",
  "1",
  "0x1",
  "1.5",
  ".inf",
  "-",
  "- ",
  ":",
  ": ",
  " #c",
  "#",
  "'q'",
  '"q"',
  "[",
  "]",
  "{",
  "}",
  ",",
  ", ",
  " ",
  "  ",
  "\t",
  "é",
  "&x",
  "*x",
  "!t",
  "|",
  ">",
  "%",
  "@",
  "?",
  "__proto__",
  "<<",
  "\r",
  "",
  "False: ",
  "null: ",
  "True: ",
  "NULL: ",
];
const SAFE = [
  "a",
  "b",
  "x y",
  "dec-0000a1",
  "Use libSQL",
  "2026-01-01",
  "2026-01-01T00:00:00Z",
  "C#",
  "a:b",
  "k_1",
  "yes",
  "No",
];
const safeText = fc.array(fc.constantFrom(...SAFE), { minLength: 1, maxLength: 3 }).map((p) => p.join(" "));
const noisyText = fc
  .array(fc.constantFrom(...SAFE, ...NOISE), { minLength: 0, maxLength: 4 })
  .map((p) => p.join(""));
/** Mostly text in the simple subset, sometimes something that is not: both sides of the boundary. */
const text = fc.oneof({ weight: 12, arbitrary: safeText }, { weight: 1, arbitrary: noisyText });
const key = fc.oneof(
  {
    weight: 12,
    arbitrary: fc
      .constantFrom("id", "title", "tags", "relates_to", "depends_on", "x-y", "type", "_k")
      .chain((k) => fc.nat(50).map((n) => `${k}${n}`)),
  },
  { weight: 1, arbitrary: fc.constantFrom("id", "a b", "9k", "__proto__") },
);
const indent = fc.constantFrom("", "  ", "  ", " ", "    ");
const mapItem = fc
  .tuple(
    key,
    text,
    fc.array(fc.tuple(key, text), { maxLength: 2 }),
    fc.constantFrom("  ", "  ", "  ", "  ", "   ", " "),
  )
  .map(([k, v, more, pad]) => [`${k}: ${v}`, ...more.map(([k2, v2]) => `${pad}${k2}: ${v2}`)]);
const item = fc.oneof(
  text.map((v) => [v]),
  fc.tuple(text, text).map(([a, b]) => [`{id: ${a}, type: ${b}}`]),
  mapItem,
);
const entry = fc
  .oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(key, fc.constantFrom(": ", ": ", ":  ", ":"), text)
        .map(([k, sep, v]) => [`${k}${sep}${v}`]),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(key, fc.array(text, { maxLength: 3 }))
        .map(([k, items]) => [`${k}: [${items.join(", ")}]`]),
    },
    { weight: 1, arbitrary: fc.tuple(key, text, text).map(([k, a, b]) => [`${k}: {id: ${a}, type: ${b}}`]) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(key, indent, fc.array(item, { minLength: 0, maxLength: 3 }))
        .map(([k, ind, items]) => [
          `${k}:`,
          ...items.flatMap((lines) => [`${ind}- ${lines[0]}`, ...lines.slice(1).map((l) => `${ind}${l}`)]),
        ]),
    },
    { weight: 1, arbitrary: noisyText.map((v) => [v]) },
  )
  .map((lines) => lines);
const frontmatter = fc
  .array(entry, { minLength: 0, maxLength: 6 })
  .map((entries) => `${entries.flat().join("\n")}\n`);

describe("parseSimpleFrontmatter", () => {
  it("reads the common shapes", () => {
    expect(
      parseSimpleFrontmatter(
        "id: dec-0000a1\ntype: decision\ntitle: Use libSQL for storage, not SQLite\ncreated_at: 2026-01-01T00:00:00Z\ntags: [storage, database]\nrelates_to: iss-0000b1\ndepends_on:\n  - {id: iss-0000b2, type: issue}\n  - id: src-0000c1\n    type: source\nsupersedes:\n- dec-0000ff\n",
      ),
    ).toEqual({
      id: "dec-0000a1",
      type: "decision",
      title: "Use libSQL for storage, not SQLite",
      created_at: "2026-01-01T00:00:00Z",
      tags: ["storage", "database"],
      relates_to: "iss-0000b1",
      depends_on: [
        { id: "iss-0000b2", type: "issue" },
        { id: "src-0000c1", type: "source" },
      ],
      supersedes: ["dec-0000ff"],
    });
  });

  it("leaves everything else to the real parser", () => {
    for (const yaml of [
      "title: 'quoted'\n",
      "title: a # comment\n",
      "count: 3\n",
      "done: true\n",
      "empty:\n",
      "id: a\n\ntitle: b\n",
      "id: a\nid: b\n",
      "nested:\n  deep:\n    x: y\n",
      "title: a: b\n",
      "list: [a, [b]]\n",
      "anchor: &x a\n",
      "title: Ünïcode\n",
    ]) {
      expect(parseSimpleFrontmatter(yaml), yaml).toBeUndefined();
    }
  });

  it("answers for a good share of generated frontmatter (so the next test has something to compare)", () => {
    const samples = fc.sample(frontmatter, { numRuns: 2000, seed: 42 });
    const answered = samples.filter((yaml) => {
      const data = parseSimpleFrontmatter(yaml);
      return data !== undefined && Object.keys(data).length >= 2;
    });
    expect(answered.length).toBeGreaterThan(100);
  });

  it("agrees with the yaml package whenever it answers, on generated frontmatter", () => {
    fc.assert(
      fc.property(frontmatter, (yaml) => {
        agrees(yaml);
      }),
      { numRuns: 5000 },
    );
  });

  it("reads a range of a longer text as it reads that range cut out", () => {
    const edge = fc.constantFrom(
      "",
      "\n",
      "\r",
      "\r\n",
      " ",
      "    ",
      "\u2028",
      "---\n",
      "x",
      "  - y",
      "  k: v",
    );
    fc.assert(
      fc.property(frontmatter, fc.boolean(), edge, edge, (text0, cr, before, after) => {
        // Sometimes a range that ends in a carriage return, which a line feed after the range must not pair.
        const yaml = cr ? `${text0.slice(0, -1)}\r` : text0;
        const text = before + yaml + after;
        expect(parseSimpleFrontmatterAt(text, before.length, before.length + yaml.length)).toEqual(
          parseSimpleFrontmatter(yaml),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it("agrees with the yaml package on the fixtures' entities", () => {
    const text = entityText({
      id: "dec-0000a1",
      tags: ["a", "b c"],
      extra:
        "status: accepted\nrelates_to: iss-0000b1\ndepends_on:\n  - {id: iss-0000b2, type: issue}\nsupersedes: [dec-0000ff]",
    });
    const yaml = text.split("---\n")[1] as string;
    expect(parseSimpleFrontmatter(yaml)).toBeDefined();
    agrees(yaml);
  });
});

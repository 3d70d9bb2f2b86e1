import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  extractLinks,
  normalizeTags,
  parseEntityAt,
  parseEntityFile,
} from "../../../src/local/ixchel/entity.js";

function entityOf(rel: string, raw: string) {
  const parsed = parseEntityFile(rel, raw);
  if (parsed.type !== "entity") throw new Error(`expected an entity, got ${JSON.stringify(parsed)}`);
  return parsed.entity;
}

describe("extractLinks", () => {
  it("reads an id, a list of ids and a list of {id, type} objects as links, sorted by rel", () => {
    expect(
      extractLinks({
        relates_to: "iss-abcdef",
        depends_on: ["iss-123456", "DEC-ABCDEF"],
        cites: [
          { id: "src-000001", type: "source" },
          { id: "cite-000002", type: "citation" },
        ],
      }),
    ).toEqual([
      { rel: "cites", targets: ["src-000001", "cite-000002"] },
      { rel: "depends_on", targets: ["iss-123456", "dec-abcdef"] },
      { rel: "relates_to", targets: ["iss-abcdef"] },
    ]);
  });

  it("ignores metadata keys, data that is not ids, and lists mixing ids with other things", () => {
    expect(
      extractLinks({
        id: "dec-123456",
        created_by: "agt-123456",
        tags: ["iss-123456"],
        priority: "high",
        owners: ["iss-123456", "alice"],
        estimate: 3,
        empty: [],
        not_hex: "iss-zzzzzz",
        too_short: "iss-12345",
      }),
    ).toEqual([]);
  });

  it("removes repeated targets", () => {
    expect(extractLinks({ blocks: ["iss-123456", "iss-123456"] })).toEqual([
      { rel: "blocks", targets: ["iss-123456"] },
    ]);
  });
});

describe("normalizeTags", () => {
  it("accepts a list or a comma-separated string, trims and removes repeats", () => {
    expect(normalizeTags([" a ", "b", "a", 3, null])).toEqual(["a", "b", "3"]);
    expect(normalizeTags("x, y,,x")).toEqual(["x", "y"]);
    expect(normalizeTags(undefined)).toEqual([]);
  });
});

describe("parseEntityFile", () => {
  it("reads an entity at its canonical place with no notes", () => {
    const entity = entityOf(
      "decisions/dec-1a2b3c.md",
      "---\nid: dec-1a2b3c\ntype: decision\ntitle: Use X\nstatus: accepted\ntags: [a]\nrelates_to: iss-abcdef\n---\nbody\n",
    );
    expect(entity).toMatchObject({
      id: "dec-1a2b3c",
      kind: "decision",
      title: "Use X",
      status: "accepted",
      tags: ["a"],
      links: [{ rel: "relates_to", targets: ["iss-abcdef"] }],
      body: "body\n",
      notes: [],
    });
  });

  it("takes the kind from the id prefix and notes a disagreeing type", () => {
    const entity = entityOf("issues/iss-1a2b3c.md", "---\nid: iss-1a2b3c\ntype: decision\ntitle: t\n---\n");
    expect(entity.kind).toBe("issue");
    expect(entity.notes.map((n) => n.code)).toEqual(["type_mismatch"]);
  });

  it("notes a file in the wrong folder, under the wrong name, or outside the kind folders", () => {
    expect(entityOf("issues/dec-1a2b3c.md", "---\nid: dec-1a2b3c\n---\n").notes[0]?.message).toContain(
      ".ixchel/decisions/dec-1a2b3c.md",
    );
    expect(entityOf("decisions/other.md", "---\nid: dec-1a2b3c\n---\n").notes.map((n) => n.code)).toEqual([
      "id_folder_mismatch",
    ]);
    expect(entityOf("notes/dec-1a2b3c.md", "---\nid: dec-1a2b3c\n---\n").notes.map((n) => n.code)).toEqual([
      "outside_kind_folder",
    ]);
    expect(entityOf("dec-1a2b3c.md", "---\nid: dec-1a2b3c\n---\n").notes.map((n) => n.code)).toEqual([
      "outside_kind_folder",
    ]);
  });

  it("uses the id as title when there is none, and lowercases ids", () => {
    const entity = entityOf("decisions/dec-1a2b3c.md", "---\nid: DEC-1A2B3C\n---\n");
    expect(entity.id).toBe("dec-1a2b3c");
    expect(entity.title).toBe("dec-1a2b3c");
  });

  it("reports unparsable frontmatter with its line, and missing or invalid ids", () => {
    expect(parseEntityFile("issues/x.md", "---\nid: iss-123456\ntags: [a\n---\n")).toMatchObject({
      type: "problem",
      code: "unparsable_frontmatter",
    });
    expect(parseEntityFile("issues/x.md", "---\ntitle: no id\n---\n")).toMatchObject({
      type: "problem",
      code: "missing_id",
    });
    expect(parseEntityFile("issues/x.md", "---\nid: ISSUE-1\n---\n")).toMatchObject({
      type: "problem",
      code: "invalid_id",
      message: expect.stringContaining("<prefix>-<6 to 12 hex digits>"),
    });
  });

  it("treats a markdown file without frontmatter outside the kind folders as plain, inside them as a problem", () => {
    expect(parseEntityFile("README.md", "# About this folder\n")).toEqual({ type: "plain" });
    expect(parseEntityFile("issues/notes.md", "# notes\n")).toMatchObject({
      type: "problem",
      code: "missing_frontmatter",
    });
  });

  it("reads a file held in a longer text (a sync's batch) as it reads the file alone", () => {
    const part = fc.constantFrom(
      ...["---", "...", "--- ", "\uFEFF", "\n", "\r\n", "\r", " ", "id: iss-1a2b3c", "id: x", "title: T"],
      ...["tags: [a, b]", "relates_to: [dec-1a2b3c]", "note: 'q'", "body", "é"],
    );
    const text = fc.array(part, { maxLength: 14 }).map((parts) => parts.join(""));
    const rel = fc.constantFrom(
      "issues/iss-1a2b3c.md",
      "README.md",
      "issues/x.md",
      "decisions/iss-1a2b3c.md",
    );
    fc.assert(
      fc.property(rel, text, text, text, (path, before, raw, after) => {
        const all = before + raw + after;
        expect(parseEntityAt(path, all, before.length, before.length + raw.length)).toStrictEqual(
          parseEntityFile(path, raw),
        );
      }),
      { numRuns: 3000 },
    );
  });
});

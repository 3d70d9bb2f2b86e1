/**
 * The hand-written fast path of the document schema (`document-check.ts`) never disagrees with zod: what it
 * accepts, zod accepts with the same output; what zod would change (trim, strip, default) or refuse, it
 * leaves to zod, so users only ever see zod's output and messages.
 */
import { describe, expect, test } from "vitest";
import { interchangeDocument, validateDocument } from "../../../src/core/interchange/document.js";
import { checkDocument } from "../../../src/core/interchange/document-check.js";
import { parseJsonDocument } from "../../../src/core/interchange/json-format.js";

const at = "2026-11-25T10:00:00.000Z";

function valid(): Record<string, unknown> {
  return {
    format: "reqlix-export",
    version: 1,
    exported_at: at,
    workspace: { slug: "a", name: "A" },
    scope: { kind: "workspace" },
    requirement_types: [{ name: "Functional", description: "" }],
    relationship_types: [{ name: "depends_on", description: "x" }],
    epics: [
      {
        reference_id: "EP-001",
        title: "Epic",
        description: "d",
        status: "Draft",
        priority: 2,
        revision: 3,
        created_at: at,
        updated_at: at,
        creator: "admin",
        assignee: null,
        external_id: "X-1",
        attributes: { a: [1, "two", { three: true }, null], b: 2.5 },
      },
    ],
    user_stories: [{ reference_id: "US-001", epic: "EP-001", title: "Story", status: "Done" }],
    requirements: [
      {
        reference_id: "REQ-001",
        user_story: "US-001",
        title: "Req",
        type: "Functional",
        status: "Active",
        priority: 4,
        attributes: null,
      },
      { user_story: "US-001", title: "Req 2", type: "Functional", external_id: null },
    ],
    acceptance_criteria: [{ reference_id: "AC-001", user_story: "US-001", title: "Given" }],
    relationships: [
      {
        source: "REQ-001",
        target: "REQ-002",
        type: "depends_on",
        revision: 1,
        source_revision: 1,
        target_revision: 2,
        created_at: at,
        creator: null,
      },
    ],
    comments: [
      {
        on: { kind: "requirement", reference_id: "REQ-001", revision: 1 },
        author: null,
        body: "hi",
        created_at: at,
        resolved_at: null,
        resolved_by: "bob",
      },
    ],
  };
}

type Mutation = [string, (d: Record<string, unknown>) => void];
const item = (d: Record<string, unknown>, list: string, i = 0) =>
  (d[list] as Record<string, unknown>[])[i] as Record<string, unknown>;

/** Each a change the fast path must either carry exactly as zod does, or leave to zod. */
const MUTATIONS: Mutation[] = [
  ["as is", () => {}],
  [
    "lists left out",
    (d) => {
      for (const k of ["requirement_types", "relationship_types", "acceptance_criteria", "comments", "scope"])
        delete d[k];
    },
  ],
  [
    "title with spaces",
    (d) => {
      item(d, "epics").title = "  Epic  ";
    },
  ],
  [
    "empty title",
    (d) => {
      item(d, "epics").title = "   ";
    },
  ],
  [
    "title of 201",
    (d) => {
      item(d, "requirements").title = "x".repeat(201);
    },
  ],
  [
    "title of 200",
    (d) => {
      item(d, "requirements").title = "x".repeat(200);
    },
  ],
  [
    "unknown key",
    (d) => {
      item(d, "requirements").extra = 1;
    },
  ],
  [
    "unknown top key",
    (d) => {
      d.extra = 1;
    },
  ],
  [
    "__proto__ in attributes",
    (d) => {
      item(d, "epics").attributes = JSON.parse('{"__proto__": {"x": 1}, "y": 2}');
    },
  ],
  [
    "NaN in attributes",
    (d) => {
      item(d, "epics").attributes = { n: Number.NaN };
    },
  ],
  [
    "undefined in attributes",
    (d) => {
      item(d, "epics").attributes = { n: undefined };
    },
  ],
  [
    "Date in attributes",
    (d) => {
      item(d, "epics").attributes = { n: new Date(0) };
    },
  ],
  [
    "attributes an array",
    (d) => {
      item(d, "epics").attributes = [1];
    },
  ],
  [
    "bad reference",
    (d) => {
      item(d, "epics").reference_id = "US-001";
    },
  ],
  [
    "reference with spaces",
    (d) => {
      item(d, "epics").reference_id = " EP-001";
    },
  ],
  [
    "priority 0",
    (d) => {
      item(d, "requirements").priority = 0;
    },
  ],
  [
    "priority 2.5",
    (d) => {
      item(d, "requirements").priority = 2.5;
    },
  ],
  [
    "priority as text",
    (d) => {
      item(d, "requirements").priority = "2";
    },
  ],
  [
    "status of a story on a requirement",
    (d) => {
      item(d, "requirements").status = "Done";
    },
  ],
  [
    "status lower case",
    (d) => {
      item(d, "epics").status = "draft";
    },
  ],
  [
    "timestamp without ms",
    (d) => {
      item(d, "epics").created_at = "2026-11-25T10:00:00Z";
    },
  ],
  [
    "timestamp Feb 30",
    (d) => {
      item(d, "epics").created_at = "2026-02-30T10:00:00.000Z";
    },
  ],
  [
    "timestamp Feb 29 leap",
    (d) => {
      item(d, "epics").created_at = "2024-02-29T10:00:00.000Z";
    },
  ],
  [
    "timestamp with offset",
    (d) => {
      item(d, "epics").created_at = "2026-11-25T10:00:00.000+01:00";
    },
  ],
  [
    "hour 24",
    (d) => {
      item(d, "epics").updated_at = "2026-11-25T24:00:00.000Z";
    },
  ],
  [
    "external id with tab",
    (d) => {
      item(d, "epics").external_id = "a\tb";
    },
  ],
  [
    "external id with spaces",
    (d) => {
      item(d, "epics").external_id = " a ";
    },
  ],
  [
    "external id empty",
    (d) => {
      item(d, "epics").external_id = "";
    },
  ],
  [
    "type with spaces",
    (d) => {
      item(d, "requirements").type = " Functional";
    },
  ],
  [
    "type missing",
    (d) => {
      delete item(d, "requirements").type;
    },
  ],
  [
    "story without epic",
    (d) => {
      delete item(d, "user_stories").epic;
    },
  ],
  [
    "description of 20001",
    (d) => {
      item(d, "epics").description = "x".repeat(20_001);
    },
  ],
  [
    "description a number",
    (d) => {
      item(d, "epics").description = 3;
    },
  ],
  [
    "creator empty",
    (d) => {
      item(d, "epics").creator = "";
    },
  ],
  [
    "revision 0",
    (d) => {
      item(d, "epics").revision = 0;
    },
  ],
  [
    "type description left out",
    (d) => {
      delete item(d, "requirement_types").description;
    },
  ],
  [
    "type name with spaces",
    (d) => {
      item(d, "requirement_types").name = "Functional ";
    },
  ],
  [
    "comment without author",
    (d) => {
      delete item(d, "comments").author;
    },
  ],
  [
    "comment body empty",
    (d) => {
      item(d, "comments").body = "";
    },
  ],
  [
    "comment on unknown kind",
    (d) => {
      (item(d, "comments").on as Record<string, unknown>).kind = "x";
    },
  ],
  [
    "relationship type spaces",
    (d) => {
      item(d, "relationships").type = "depends_on ";
    },
  ],
  [
    "scope epic",
    (d) => {
      d.scope = { kind: "epic", epic: "EP-001" };
    },
  ],
  [
    "scope epic bad",
    (d) => {
      d.scope = { kind: "epic", epic: "EP" };
    },
  ],
  [
    "workspace extra key",
    (d) => {
      d.workspace = { slug: "a", name: "A", x: 1 };
    },
  ],
  [
    "version 2",
    (d) => {
      d.version = 2;
    },
  ],
  [
    "epics not a list",
    (d) => {
      d.epics = {};
    },
  ],
  [
    "sparse list",
    (d) => {
      (d.epics as unknown[]).length = 3;
    },
  ],
  [
    "item null",
    (d) => {
      (d.requirements as unknown[]).push(null);
    },
  ],
  [
    "baselines",
    (d) => {
      d.baselines = [{ name: "b", epic: null, created_at: at, entries: [] }];
    },
  ],
];

describe("document fast check", () => {
  test.each(MUTATIONS)("%s: the fast path agrees with zod", (_name, mutate) => {
    const doc = valid();
    mutate(doc);
    const fast = checkDocument(doc);
    const zod = interchangeDocument.safeParse(doc);
    if (fast !== undefined) {
      expect(zod.success).toBe(true);
      expect(fast).toEqual(zod.data);
    }
    // validateDocument answers as zod does in every case.
    if (zod.success) expect(validateDocument(doc)).toEqual(zod.data);
    else expect(() => validateDocument(doc)).toThrow(/not a valid reqlix export document/);
  });

  test("a plain valid file takes the fast path, its items not copied", () => {
    const doc = valid();
    const fast = checkDocument(doc);
    expect(fast).toBeDefined();
    expect(fast?.requirements[0]).toBe(item(doc, "requirements"));
  });

  test("a file zod must fix or refuse is left to zod", () => {
    for (const name of ["title with spaces", "unknown key", "priority 0", "timestamp Feb 30", "baselines"]) {
      const doc = valid();
      (MUTATIONS.find(([n]) => n === name) as Mutation)[1](doc);
      expect(checkDocument(doc), name).toBeUndefined();
    }
  });

  test("a schema error is still located by line and column with zod's message", () => {
    const text =
      '{"format":"reqlix-export","version":1,\n"requirements":[{"title":"x","user_story":"US-1","type":"F","priority":9}]}';
    let caught: unknown;
    try {
      parseJsonDocument(text);
    } catch (err) {
      caught = err;
    }
    const problems = (
      caught as { problems: { path: string; line: number; column: number; message: string }[] }
    ).problems;
    expect(problems[0]?.path).toBe("requirements[0].priority");
    expect(problems[0]?.line).toBe(2);
    expect(problems[0]?.message).toMatch(/4/);
  });
});

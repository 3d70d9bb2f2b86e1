/**
 * reqlix → ReqIF → reqlix is exact for everything ReqIF carries (titles, text as XHTML, status, priority,
 * type, reference ids, external ids, attributes, hierarchy, relationships), and exporting what was read
 * gives the same file: the converters alone, without a database (the database round trip is in
 * test/http/interchange-reqif.test.ts).
 */
import { describe, expect, test } from "vitest";
import type {
  CriterionDoc,
  EpicDoc,
  InterchangeDocument,
  RequirementDoc,
  UserStoryDoc,
} from "../../../src/core/interchange/document.js";
import { validateDocument } from "../../../src/core/interchange/document.js";
import type { ExportSource } from "../../../src/core/interchange/formats.js";
import { readReqif } from "../../../src/core/interchange/reqif/reqif-read.js";
import { exportReqif } from "../../../src/core/interchange/reqif/reqif-write.js";
import { documentSource } from "./document-source.js";

async function toReqif(doc: InterchangeDocument, exportedAt = "2026-11-25T10:00:00.000Z"): Promise<string> {
  const parts: string[] = [];
  await exportReqif(documentSource(doc, exportedAt), { write: (c) => void parts.push(String(c)) });
  return parts.join("");
}

const TRICKY = [
  "a < b && c > d \"double\" 'single'",
  "\tindented with a tab",
  "carriage\r\nreturn and a lone\rone",
  "",
  "blank line above; ]]> <xhtml:div>not markup</xhtml:div> &amp; literally",
  "  leading and trailing spaces  ",
  "emoji 😀, NBSP\u00a0, accents àéîõü, 中文",
].join("\n");

const DOC: InterchangeDocument = validateDocument({
  format: "reqlix-export",
  version: 1,
  requirement_types: [
    { name: "Functional", description: "What the system must do." },
    { name: "Regulatory", description: 'Laws & "rules" <quoted>' },
  ],
  relationship_types: [
    { name: "depends_on", description: "The source needs the target first." },
    { name: "verifies", description: "" },
  ],
  epics: [
    {
      reference_id: "EP-001",
      external_id: "DOORS-1",
      attributes: { Owner: "Ada", numbers: [1, 2.5], nested: { ok: true, none: null } },
      title: 'Checkout & "payments" <v2>',
      description: TRICKY,
      status: "In Progress",
      priority: 2,
    },
    { reference_id: "EP-002", title: "Empty epic", status: "Backlog", priority: 4 },
  ],
  user_stories: [
    {
      reference_id: "US-001",
      epic: "EP-001",
      title: "Pay by card",
      description: "As a buyer…",
      status: "Done",
      priority: 1,
    },
    { reference_id: "US-002", epic: "EP-001", title: "No children", status: "Cancelled" },
  ],
  requirements: [
    {
      reference_id: "REQ-001",
      user_story: "US-001",
      title: "Card number is validated",
      description: TRICKY,
      type: "Functional",
      status: "Active",
      priority: 1,
    },
    {
      reference_id: "REQ-002",
      user_story: "US-001",
      external_id: "1.2.3",
      title: "Keep receipts",
      type: "Regulatory",
      status: "Obsolete",
      priority: 4,
      attributes: { "ReqIF.ForeignID": "LOREM-818" },
    },
    { reference_id: "REQ-003", user_story: "US-001", title: "No text", type: "Functional" },
  ],
  acceptance_criteria: [
    {
      reference_id: "AC-001",
      user_story: "US-001",
      title: "Given a bad number, it is refused",
      description: "x\ny",
    },
  ],
  relationships: [
    { source: "REQ-001", target: "REQ-002", type: "depends_on" },
    { source: "REQ-003", target: "REQ-001", type: "verifies" },
  ],
});

/**
 * What ReqIF carries of a document (timestamps, revisions, people and comments are JSON-only), with what a
 * workspace stores for a field the document leaves out (the export always writes it).
 */
function carried(doc: InterchangeDocument) {
  const common = (e: EpicDoc | UserStoryDoc | RequirementDoc | CriterionDoc) => ({
    reference_id: e.reference_id,
    external_id: e.external_id ?? null,
    attributes: e.attributes ?? null,
    title: e.title,
    description: e.description ?? "",
  });
  return {
    requirement_types: doc.requirement_types,
    relationship_types: doc.relationship_types,
    epics: doc.epics.map((e) => ({ ...common(e), status: e.status ?? "Backlog", priority: e.priority ?? 3 })),
    user_stories: doc.user_stories.map((s) => ({
      ...common(s),
      epic: s.epic,
      status: s.status ?? "Backlog",
      priority: s.priority ?? 3,
    })),
    requirements: doc.requirements.map((r) => ({
      ...common(r),
      user_story: r.user_story,
      type: r.type,
      status: r.status ?? "Draft",
      priority: r.priority ?? 3,
    })),
    acceptance_criteria: doc.acceptance_criteria.map((c) => ({ ...common(c), user_story: c.user_story })),
    relationships: doc.relationships.map((r) => ({ source: r.source, target: r.target, type: r.type })),
  };
}

describe("ReqIF round trip through the converters", () => {
  test("export → read gives back every field ReqIF carries, exactly", async () => {
    const xml = await toReqif(DOC);
    const back = await readReqif([xml]);
    expect(carried(back)).toEqual(carried(DOC));
  });

  test("export → read → export gives the same file; another export time changes only timestamps", async () => {
    const first = await toReqif(DOC);
    const again = await toReqif(await readReqif([first]));
    expect(again).toBe(first);
    const later = await toReqif(DOC, "2027-01-01T00:00:00.000Z");
    expect(later).not.toBe(first);
    expect(later.replaceAll("2027-01-01T00:00:00.000Z", "2026-11-25T10:00:00.000Z")).toBe(first);
  });

  test("the file is ReqIF 1.2 as the brief's layout says, with text as escaped xhtml:div", async () => {
    const xml = await toReqif(DOC);
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<REQ-IF xmlns="http:\/\/www\.omg\.org\/spec\/ReqIF\/20110401\/reqif\.xsd" xmlns:xhtml="http:\/\/www\.w3\.org\/1999\/xhtml">/,
    );
    for (const tag of [
      "REQ-IF-HEADER",
      "DATATYPE-DEFINITION-XHTML",
      "DATATYPE-DEFINITION-ENUMERATION",
      "SPEC-OBJECT-TYPE",
      "SPEC-RELATION-TYPE",
      "SPECIFICATION-TYPE",
    ]) {
      expect(xml).toContain(`<${tag} `);
    }
    expect(xml).toContain(
      '<SPEC-OBJECT IDENTIFIER="reqlix-REQ-001" LAST-CHANGE="2026-11-25T10:00:00.000Z" LONG-NAME="Card number is validated">',
    );
    expect(xml).toContain(
      "<THE-VALUE><xhtml:div>a &lt; b &amp;&amp; c &gt; d \"double\" 'single'<xhtml:br/>\tindented with a tab<xhtml:br/>carriage&#13;<xhtml:br/>return and a lone&#13;one<xhtml:br/><xhtml:br/>blank line above; ]]&gt; &lt;xhtml:div&gt;not markup&lt;/xhtml:div&gt; &amp;amp; literally",
    );
    expect(xml).toContain('LONG-NAME="Checkout &amp; &quot;payments&quot; &lt;v2&gt;"');
    expect(xml).toContain(
      '<SPEC-RELATION IDENTIFIER="reqlix-relation-REQ-001-depends_on-REQ-002" LAST-CHANGE="2026-11-25T10:00:00.000Z"><SOURCE><SPEC-OBJECT-REF>reqlix-REQ-001</SPEC-OBJECT-REF></SOURCE><TARGET><SPEC-OBJECT-REF>reqlix-REQ-002</SPEC-OBJECT-REF></TARGET><TYPE><SPEC-RELATION-TYPE-REF>reqlix-relation-type-depends_on</SPEC-RELATION-TYPE-REF></TYPE></SPEC-RELATION>',
    );
    // Epic → story → requirements and criteria, one SPECIFICATION per epic.
    const spec = xml.slice(
      xml.indexOf('<SPECIFICATION IDENTIFIER="reqlix-EP-001-specification"'),
      xml.indexOf("</SPECIFICATION>"),
    );
    const order = [...spec.matchAll(/<SPEC-OBJECT-REF>([^<]+)</g)].map((m) => m[1]);
    expect(order).toEqual([
      "reqlix-EP-001",
      "reqlix-US-001",
      "reqlix-REQ-001",
      "reqlix-REQ-002",
      "reqlix-REQ-003",
      "reqlix-AC-001",
      "reqlix-US-002",
    ]);
    expect(xml.match(/<SPECIFICATION /g)).toHaveLength(2);
  });

  test("characters XML 1.0 cannot carry become U+FFFD (the JSON format keeps them)", async () => {
    const doc = validateDocument({
      ...DOC,
      requirements: [{ ...DOC.requirements[0], description: "bell \u0007, \u001f and \uffff" }],
      relationships: [],
    });
    const back = await readReqif([await toReqif(doc)]);
    expect(back.requirements[0]?.description).toBe("bell \ufffd, \ufffd and \ufffd");
  });

  test("an epic's export keeps only the relationships inside it", async () => {
    const one: InterchangeDocument = { ...DOC, epics: [DOC.epics[0] as EpicDoc] };
    const source = documentSource(one, "2026-11-25T10:00:00.000Z");
    // The relationships name requirements the export does not hold (as in an epic's export of a workspace).
    const outside = { ...source, requirements: async function* () {} } satisfies ExportSource;
    const parts: string[] = [];
    await exportReqif(outside, { write: (c) => void parts.push(String(c)) });
    const back = await readReqif(parts);
    expect(back.requirements).toEqual([]);
    expect(back.relationships).toEqual([]);
  });
});

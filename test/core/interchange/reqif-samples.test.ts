/**
 * ReqIF files written by other tools (Polarion, Enterprise Architect, DOORS, Eclipse RMF, StrictDoc; see
 * test/fixtures/reqif/README.md) read into valid interchange documents, by the hierarchy rule of
 * docs/interchange.md, with every value they carry that is no reqlix field kept in `attributes`.
 */
import { createReadStream } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { readReqif } from "../../../src/core/interchange/reqif/reqif-read.js";

const FIXTURES = resolve(import.meta.dirname, "../../fixtures/reqif");
const read = (name: string, options = {}) => readReqif(createReadStream(resolve(FIXTURES, name)), options);

describe("ReqIF files from other tools import", () => {
  test("Polarion: the live document is the epic, its heading a story, its requirement a requirement", async () => {
    const doc = await read("reqif-polarion.reqif");
    expect(doc.epics).toMatchObject([
      { external_id: "_b937ac1e-14cd-4222-8a19-b77d107d9a02", title: "Test Export" },
    ]);
    expect(doc.user_stories).toMatchObject([
      {
        external_id: "rmf-bd312f1z-fa7c-4de3-b8f3-ab105179fccc",
        epic: "_b937ac1e-14cd-4222-8a19-b77d107d9a02",
        title: "Section 1",
        description: "Section text...",
      },
    ]);
    expect(doc.requirements).toHaveLength(1);
    expect(doc.requirements[0]).toMatchObject({
      external_id: "rmf-1d312f18-fa7c-4de3-b8f3-ab105179fddf",
      user_story: "rmf-bd312f1z-fa7c-4de3-b8f3-ab105179fccc",
      title: "SW: Lorem Ipsum",
      description: "The Lorem Ipsum shall do something.",
      type: "Functional",
      status: "Draft",
      attributes: {
        "ReqIF.ForeignID": "LOREM-818",
        "ReqIF.ForeignCreatedBy": "redacted@mail.com",
        "ReqIF.ForeignCreatedOn": "2023-03-15T10:46:58.611Z",
        "ReqIF.type": "System Requirement",
      },
    });
  });

  test("Enterprise Architect: objects no specification places are kept, values by their definition", async () => {
    const doc = await read("reqif-sparx-ea.reqif");
    // Its hierarchy names objects the file does not define; the three objects it defines still arrive.
    expect(doc.requirements.map((r) => [r.external_id, r.title])).toEqual([
      ["R001", "Observe earths surface."],
      ["R002", "Spotting fire"],
      ["R003", "Fast system"],
    ]);
    expect(doc.requirements[0]?.attributes).toMatchObject({
      "FUNC-REQ-TXT": "The system shall observe the earths surface.",
    });
    expect(doc.requirements[2]?.attributes).toMatchObject({
      "PERF-REQ-TXT":
        "The time span between detection of a fire and alerting of control center shall be less than 3 sec.",
    });
    expect(doc.epics.map((e) => e.title)).toEqual([
      "Forest Fire Detection System",
      "ReqIF objects outside any specification",
    ]);
    expect(doc.epics[0]?.attributes).toMatchObject({
      "ReqIF.DESC":
        "This is the User Requirements Specification for the Forest Fire Detection System of Customer Y.",
    });
  });

  test("DOORS: XHTML values keep their line breaks and tabs", async () => {
    const doc = await read("reqif-doors.reqif");
    expect(doc.requirements).toHaveLength(1);
    expect(doc.requirements[0]?.attributes).toMatchObject({
      "_1130028d-48cd-4e82-a8d5-a12991a94241":
        "some data\n\tSubtitle\nsome data\n\tMore data\n\t\tusing even more data",
      "_df868432-82f4-4ca1-8129-a4d1e49439f7": "67",
      "_295e207f-e060-4b94-9845-26a5e6cf9d50": true,
    });
  });

  test("Eclipse RMF: a relation that does not join two requirements is kept on its source", async () => {
    const doc = await read("reqif-eclipse-rmf-relations.reqif");
    expect(doc.relationships).toEqual([]);
    expect(doc.user_stories[0]?.attributes?.["ReqIF.relations"]).toEqual([
      {
        identifier: "_RaVYU9aVEeCyV-qeruTLwA",
        type: "SpecRelationType1",
        source: "2c84e85a-59d1-11da-8ef5-afdbd01c7a79",
        target: "2c84e85a-59d1-11da-8ef5-afdbd01c7a71",
      },
    ]);
    expect(doc.user_stories[0]?.attributes).toMatchObject({ Author: "Max Mustermann", Age: 2 });
  });

  test("StrictDoc: document → epic, section → story, requirements, and their Parent relation", async () => {
    const doc = await read("strictdoc-minimal.reqif");
    expect(doc.epics.map((e) => e.title)).toEqual(["Sample ReqIF document"]);
    expect(doc.user_stories.map((s) => s.title)).toEqual(["Section #1"]);
    expect(doc.requirements.map((r) => r.title)).toEqual(["Requirement #1", "Requirement #2"]);
    const [first, second] = doc.requirements;
    // StrictDoc's "Parent" is the closest seeded type; the original type is kept on the source.
    expect(doc.relationships).toEqual([
      { source: second?.external_id, target: first?.external_id, type: "derives_from" },
    ]);
    expect(second?.attributes?.["ReqIF.relations"]).toMatchObject([{ type: "Parent" }]);
  });

  test("StrictDoc, two documents: shallow trees make each specification an epic (epic depth auto → 0)", async () => {
    const doc = await read("strictdoc-two-documents.reqif");
    expect(doc.epics.map((e) => [e.external_id, e.title])).toEqual([
      ["SPECIFICATION-41de9c2d-8c28-43ac-8f5e-97f5590e3579", "Document 1"],
      ["SPECIFICATION-f93daea3-3907-4844-a2b7-e3aa064d36f8", "Document 2"],
    ]);
    // A leaf directly under the specification has no story: it goes into one made for its epic.
    expect(doc.user_stories.map((s) => [s.external_id, s.title, s.epic])).toEqual([
      [
        "SPECIFICATION-41de9c2d-8c28-43ac-8f5e-97f5590e3579#items",
        "Document 1",
        "SPECIFICATION-41de9c2d-8c28-43ac-8f5e-97f5590e3579",
      ],
      [
        "SECTION-31219e62-b2c9-4557-ac49-fae2ad7b856e",
        "Document 1 section",
        "SPECIFICATION-41de9c2d-8c28-43ac-8f5e-97f5590e3579",
      ],
      [
        "SPECIFICATION-f93daea3-3907-4844-a2b7-e3aa064d36f8#items",
        "Document 2",
        "SPECIFICATION-f93daea3-3907-4844-a2b7-e3aa064d36f8",
      ],
      [
        "SECTION-94850266-89dd-4831-832d-991ac00147fe",
        "Document 2 section",
        "SPECIFICATION-f93daea3-3907-4844-a2b7-e3aa064d36f8",
      ],
    ]);
    expect(doc.requirements.map((r) => [r.title, r.user_story])).toEqual([
      ["Document 1 free text.", "SPECIFICATION-41de9c2d-8c28-43ac-8f5e-97f5590e3579#items"],
      ["Document 1 statement.", "SECTION-31219e62-b2c9-4557-ac49-fae2ad7b856e"],
      ["Document 2 free text.", "SPECIFICATION-f93daea3-3907-4844-a2b7-e3aa064d36f8#items"],
      ["Document 2 statement.", "SECTION-94850266-89dd-4831-832d-991ac00147fe"],
    ]);
    // With no title attribute, the title is the text's first line and the text the description.
    expect(doc.requirements[0]?.description).toBe("Document 1 free text.");
  });

  test("epic depth 1 makes the top-level objects epics instead", async () => {
    const doc = await read("strictdoc-two-documents.reqif", { epicDepth: 1 });
    expect(doc.epics.map((e) => e.title)).toEqual([
      "Document 1 free text.",
      "Document 1 section",
      "Document 2 free text.",
      "Document 2 section",
    ]);
    expect(doc.user_stories.map((s) => s.external_id)).toEqual([
      "SECTION-31219e62-b2c9-4557-ac49-fae2ad7b856e#items",
      "SECTION-94850266-89dd-4831-832d-991ac00147fe#items",
    ]);
    expect(doc.requirements.map((r) => r.title)).toEqual(["Document 1 statement.", "Document 2 statement."]);
  });
});

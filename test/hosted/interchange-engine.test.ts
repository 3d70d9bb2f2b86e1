/**
 * The interchange engine over a real libSQL database: export (JSON) → import into an empty workspace →
 * export gives the same document; re-import creates nothing; a dry run (planImport) writes nothing; a
 * failing item rolls the whole import back.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { AuthInfo } from "../../src/core/auth-info.js";
import { DocumentError, type InterchangeDocument } from "../../src/core/interchange/document.js";
import { importInputOf } from "../../src/core/interchange/formats.js";
import { parseMarkdownFiles } from "../../src/core/interchange/markdown-format.js";
import { interchangeFormat } from "../../src/core/interchange/registry.js";
import { collect, readTar } from "../../src/core/interchange/tar.js";
import { exportSource } from "../../src/db/interchange-export.js";
import { planImport } from "../../src/db/interchange-import.js";
import { workspaceSnapshot } from "../helpers/db-snapshot.js";
import { createHarness, type Harness, ok } from "./harness.js";
import { applyDocument, exportText as exportTextOf } from "./interchange-io.js";

let h: Harness;
let alice: AuthInfo;
let editor: Client;

const exportText = (auth: AuthInfo, format = "json", epic?: string) =>
  exportTextOf(h.database, auth, format, epic);

async function parse(text: string, format = "json"): Promise<InterchangeDocument> {
  return interchangeFormat(format).parse(importInputOf(text, "export.json"));
}

const apply = (auth: AuthInfo, doc: InterchangeDocument, source = "export.json") =>
  applyDocument(h.database, auth, doc, source);

/** The document without what differs between two workspaces by design: the export time and the workspace. */
function comparable(text: string) {
  const { exported_at: _e, workspace: _w, ...rest } = JSON.parse(text);
  return rest;
}

beforeAll(async () => {
  h = await createHarness();
  alice = await h.member("alice", "admin", "source");
  await h.member("bob", "editor", "source");
  editor = await h.connect(alice);
  const epic = await ok<{ reference_id: string }>(editor, "create_epic", {
    title: "Checkout",
    description: 'Paying.\n\nWith "quotes", commas, and =formulas',
    priority: 2,
    assignee: "bob",
    external_id: "JIRA-1",
  });
  await ok(editor, "create_epic", { title: "Second" });
  const story = await ok<{ reference_id: string }>(editor, "create_user_story", {
    epic_id: epic.reference_id,
    title: "Pay by card",
  });
  await ok(admin(), "create_requirement_type", { name: "Legal", description: "law" });
  const r1 = await ok<{ reference_id: string }>(editor, "create_requirement", {
    user_story_id: story.reference_id,
    title: "Card numbers are masked",
    description: "=SUM(A1) +1 -2 @x",
    type: "Legal",
    priority: 1,
  });
  const r2 = await ok<{ reference_id: string }>(editor, "create_requirement", {
    user_story_id: story.reference_id,
    title: "Declines are explained",
    type: "Functional",
    priority: 3,
    status: "Obsolete",
  });
  await ok(editor, "update_requirement", {
    requirement_id: r1.reference_id,
    description: "masked but the last 4",
  });
  await ok(editor, "create_relationship", {
    source_requirement_id: r1.reference_id,
    target_requirement_id: r2.reference_id,
    relationship_type: "depends_on",
  });
  // r1 changes after the link: the link is suspect, and must stay so through a round trip.
  await ok(editor, "update_requirement", { requirement_id: r1.reference_id, priority: 2 });
  await ok(editor, "create_acceptance_criteria", {
    user_story_id: story.reference_id,
    description: "Given a card\nthen ****",
  });
  await ok(editor, "add_comment", { id: r1.reference_id, text: "Why 4?" });
});
afterAll(async () => h?.close());

function admin(): Client {
  return editor;
}

describe("JSON round trip", () => {
  test("export → import into an empty workspace → export gives the same document", async () => {
    const first = await exportText(alice);
    const target = await h.member("alice", "admin", "target");
    await h.member("bob", "viewer", "target");
    const plan = await apply(target, await parse(first));
    expect(plan.errors).toEqual([]);
    expect(plan.create.filter((e) => e.kind === "requirement")).toHaveLength(2);
    const second = await exportText(target);
    expect(comparable(second)).toEqual(comparable(first));
    expect(JSON.parse(second).relationships[0]).toMatchObject({
      source: "REQ-001",
      target: "REQ-002",
      source_revision: 2,
    });

    // The same file again: everything matches, nothing is created, nothing changes.
    const before = await workspaceSnapshot(h.database.client, target.workspaceId);
    const again = await apply(target, await parse(first));
    expect(again.create).toEqual([]);
    expect(again.update).toEqual([]);
    expect(again.unchanged.length).toBeGreaterThan(5);
    expect(await workspaceSnapshot(h.database.client, target.workspaceId)).toEqual(before);
  });

  test("an assignee who is no member of the target is kept in attributes.assignee, not assigned", async () => {
    const doc = structuredClone(await parse(await exportText(alice)));
    (doc.requirements[0] as { assignee: string }).assignee = "bob";
    const assigned = doc.requirements.filter((r) => r.assignee === "bob");
    expect(assigned).toHaveLength(1);
    // bob is a member of the source workspace only.
    const target = await h.member("alice", "admin", "no-bob");
    const plan = await apply(target, doc);
    expect(plan.errors).toEqual([]);
    expect(plan.warnings.some((w) => w.includes('"bob" is not a member of this workspace'))).toBe(true);
    const back = JSON.parse(await exportText(target));
    for (const r of assigned) {
      const stored = back.requirements.find(
        (x: { reference_id: string }) => x.reference_id === r.reference_id,
      );
      expect(stored.assignee ?? null).toBeNull();
      expect(stored.attributes).toEqual({ ...(r.attributes ?? {}), assignee: "bob" });
    }
  });

  test("revisions of an import record the file as their source", async () => {
    const target = await h.member("alice", "admin", "target-src");
    await apply(target, await parse(await exportText(alice)), "big-export.json");
    const rs = await h.database.client.execute({
      sql: "SELECT DISTINCT source, tool FROM revisions WHERE workspace_id = ?",
      args: [target.workspaceId],
    });
    expect(rs.rows.map((r) => [r.source, r.tool])).toEqual([["big-export.json", "import"]]);
  });

  test("planImport (dry run) reports create/update/unchanged and writes nothing", async () => {
    const target = await h.member("alice", "admin", "dry");
    const doc = await parse(await exportText(alice));
    const before = await workspaceSnapshot(h.database.client, target.workspaceId);
    const plan = await h.database.read((db) =>
      planImport(db, target.workspaceId, doc, { createTypes: true }),
    );
    expect(plan.create.map((e) => e.kind)).toContain("requirement");
    expect(plan.errors).toEqual([]);
    expect(await workspaceSnapshot(h.database.client, target.workspaceId)).toEqual(before);
    // A changed title is an update of that one field.
    const changed = structuredClone(doc);
    (changed.requirements[0] as { title: string }).title = "Card numbers are hidden";
    const onSource = await h.database.read((db) => planImport(db, alice.workspaceId, changed));
    expect(onSource.create).toEqual([]);
    expect(onSource.update).toEqual([
      { kind: "requirement", reference_id: "REQ-001", matched_by: "reference_id", changes: ["title"] },
    ]);
  });

  test("a failing item rolls the whole import back: nothing stored", async () => {
    const target = await h.member("alice", "editor", "rollback");
    const doc = await parse(await exportText(alice));
    // Two requirements of one story with the same title: the second create is refused inside the transaction.
    const dup = structuredClone(doc);
    (dup.requirements[1] as { title: string }).title = dup.requirements[0]?.title as string;
    (dup.requirements[0] as { type: string }).type = "Functional";
    const before = await workspaceSnapshot(h.database.client, target.workspaceId);
    await expect(apply(target, dup)).rejects.toThrow(/already has a requirement titled/);
    expect(await workspaceSnapshot(h.database.client, target.workspaceId)).toEqual(before);
  });

  test("malformed JSON and schema errors name line and column", async () => {
    const err = await parse(
      '{\n  "format": "reqlix-export",\n  "version": 1,\n  "epics": [ {"title": } ]\n}',
    ).catch((e) => e);
    expect(err).toBeInstanceOf(DocumentError);
    expect(err.problems[0]).toMatchObject({ line: 4, column: 24 });
    const bad = await parse(
      '{\n"format": "reqlix-export",\n"version": 1,\n"epics": [\n  {"title": "x", "priority": 9}\n]}',
    ).catch((e) => e);
    expect(bad).toBeInstanceOf(DocumentError);
    expect(bad.problems[0]).toMatchObject({ path: "epics[0].priority", line: 5, column: 30 });
  });
});

describe("CSV", () => {
  test("cells beginning with =, +, -, @ are neutralised with a leading ' (RFC 4180 quoting), and restored on import", async () => {
    const csv = await exportText(alice, "csv");
    const [header, ...rows] = csv.trimEnd().split("\r\n");
    expect(header).toBe(
      "reference_id,external_id,title,description,type,status,priority,assignee,user_story,user_story_title,epic,epic_title,creator,revision,created_at,updated_at,attributes",
    );
    expect(rows).toHaveLength(2);
    // REQ-001's description was "masked but the last 4"; the epic's description is not in CSV.
    const target = await h.member("alice", "admin", "csv-formula");
    const doc = await parse(
      `${header}\r\nREQ-001,,=1+1,"=HYPERLINK(""http://evil"",""x"")",Functional,Draft,2,,US-001,Story,EP-001,Epic,,,,,\r\nREQ-002,,+SUM,-minus,Functional,Draft,2,,US-001,Story,EP-001,Epic,,,,,\r\nREQ-003,,@me,'=already,Functional,Draft,2,,US-001,Story,EP-001,Epic,,,,,\r\n`,
      "csv",
    );
    expect(doc.requirements.map((r) => r.title)).toEqual(["=1+1", "+SUM", "@me"]);
    expect(doc.requirements[2]?.description).toBe("=already");
    await apply(target, doc);
    const out = await exportText(target, "csv");
    const lines = out.split("\r\n");
    expect(lines[1]).toContain(`,'=1+1,"'=HYPERLINK(""http://evil"",""x"")",`);
    expect(lines[2]).toContain(",'+SUM,'-minus,");
    expect(lines[3]).toContain(",'@me,'=already,");
    // No cell of the file starts a formula.
    for (const line of lines) for (const c of line.split(",")) expect(c).not.toMatch(/^"?[=+\-@]/);
    // And back: the stored texts are exactly what was sent.
    const back = await parse(out, "csv");
    expect(back.requirements.map((r) => [r.title, r.description])).toEqual([
      ["=1+1", '=HYPERLINK("http://evil","x")'],
      ["+SUM", "-minus"],
      ["@me", "=already"],
    ]);
  });

  test("CSV round trip: export → import into an empty workspace → the same CSV; unknown columns kept as attributes", async () => {
    const first = await exportText(alice, "csv");
    const target = await h.member("alice", "admin", "csv-round");
    const plan = await apply(target, await parse(first, "csv"));
    expect(plan.errors).toEqual([]);
    expect(await exportText(target, "csv")).toBe(first);
    const again = await apply(target, await parse(first, "csv"));
    expect(again.create).toEqual([]);

    const extra = await parse(
      "title,type,user_story,user_story_title,epic,epic_title,Jira Sprint\r\nNew one,Functional,US-001,Pay by card,EP-001,Checkout,Sprint 7\r\n",
      "csv",
    );
    expect(extra.requirements[0]?.attributes).toEqual({ "jira sprint": "Sprint 7" });
  });

  test("malformed CSV and bad cells name line and column; nothing is written", async () => {
    const quote = await parse(
      'title,type,user_story\r\nok,Functional,US-001\r\n"bad"x,Functional,US-001\r\n',
      "csv",
    ).catch((e) => e);
    expect(quote).toBeInstanceOf(DocumentError);
    expect(quote.problems[0]).toMatchObject({ line: 3 });
    const priority = await parse("title,type,user_story,priority\r\nok,Functional,US-001,9\r\n", "csv").catch(
      (e) => e,
    );
    expect(priority).toBeInstanceOf(DocumentError);
    expect(priority.problems[0]).toMatchObject({ line: 2, column: 4, path: "requirements[0].priority" });
    const ragged = await parse("title,type,user_story\r\na,b\r\n", "csv").catch((e) => e);
    expect(ragged.problems[0]).toMatchObject({ line: 2 });
  });
});

describe("Markdown (.tar.gz)", () => {
  async function exportFiles(auth: AuthInfo, epic?: string) {
    const parts: Uint8Array[] = [];
    await h.database.read(async (db) => {
      const source = await exportSource(db, auth.workspaceId, { now: new Date(), ...(epic ? { epic } : {}) });
      await interchangeFormat("markdown").export(source, {
        write: (c) => {
          parts.push(typeof c === "string" ? new TextEncoder().encode(c) : c);
        },
      });
    });
    const gz = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      gz.set(p, at);
      at += p.length;
    }
    const tar = await collect(
      new Blob([gz])
        .stream()
        .pipeThrough(
          new DecompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>,
        ),
    );
    return {
      gz,
      files: readTar(tar).map((f) => ({ name: f.name, text: new TextDecoder().decode(f.content) })),
    };
  }

  test("a folder per epic, a file per story, readable; import into an empty workspace gives the same files", async () => {
    const marked = await ok<{ reference_id: string }>(editor, "create_epic", {
      title: "Tricky",
      description: "line\n<!-- reqlix:requirement -->\nnot a marker\n\n",
    });
    const { gz, files } = await exportFiles(alice);
    expect(files.map((f) => f.name)).toEqual(
      expect.arrayContaining([
        "EP-001-checkout/README.md",
        "EP-001-checkout/US-001-pay-by-card.md",
        "EP-003-tricky/README.md",
      ]),
    );
    const story = files.find((f) => f.name === "EP-001-checkout/US-001-pay-by-card.md")?.text ?? "";
    expect(story).toContain("# US-001: Pay by card");
    expect(story).toContain("## REQ-001: Card numbers are masked");
    expect(story).toContain("- Relationships: depends_on REQ-002");
    expect(story).toContain("## AC-001: Given a card");
    const target = await h.member("alice", "admin", "md-round");
    await h.member("bob", "viewer", "md-round");
    const doc = await interchangeFormat("markdown").parse(importInputOf(gz, "reqs.tar.gz"));
    expect(doc.epics.find((e) => e.reference_id === marked.reference_id)?.description).toBe(
      "line\n<!-- reqlix:requirement -->\nnot a marker\n\n",
    );
    const applied = await apply(target, doc, "reqs.tar.gz");
    expect(applied.errors).toEqual([]);
    const again = await exportFiles(target);
    expect(again.files).toEqual(files);
    expect((await apply(target, doc, "reqs.tar.gz")).create).toEqual([]);
  });

  test("not a .tar.gz, or a file outside the layout: an error naming where, nothing imported", async () => {
    const notGz = await interchangeFormat("markdown")
      .parse(importInputOf("hello", "x.tar.gz"))
      .catch((e) => e);
    expect(notGz).toBeInstanceOf(DocumentError);
    const bad = await Promise.resolve()
      .then(() =>
        parseMarkdownFiles([
          {
            name: "EP-001-x/US-001-y.md",
            text: "<!-- reqlix:user_story -->\n# US-001: Y\n\n- Epic: EP-001\n- Mood: happy\n\ntext\n",
          },
        ]),
      )
      .catch((e) => e);
    expect(bad).toBeInstanceOf(DocumentError);
    expect(bad.problems[0]).toMatchObject({ path: "EP-001-x/US-001-y.md", line: 5 });
  });
});

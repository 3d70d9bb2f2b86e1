/**
 * Whole-story and whole-epic reads are paged (issue item 8): get_user_story_requirements, get_user_story,
 * epic_hierarchy, their resources and the prompts that carry them. One story of 3,000 requirements (some
 * with long texts) read through the real JSON-RPC face: every answer stays under the byte cap, walking the
 * pages yields every requirement exactly once in the spec's order (priority ascending, created_at
 * descending, later insert first on a tie), and a page cut short by the cap still carries a valid cursor.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createAcceptanceCriterion } from "../../src/db/acceptance-criteria.repo.js";
import { createEpic } from "../../src/db/epics.repo.js";
import { createRequirement } from "../../src/db/requirements.repo.js";
import { createUserStory } from "../../src/db/user-stories.repo.js";
import { MAX_RESPONSE_BYTES } from "../../src/hosted/paging.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { type RpcAnswer, rpc } from "../http/faces/http.js";

const TOTAL = 3000;
const CRITERIA = 40;

let t: TestApp;
/** Reference ids in the spec's order, computed here from what was inserted. */
let expected: string[];
let expectedCriteria: string[];

const bytes = (a: RpcAnswer) => new TextEncoder().encode(a.text).length;

async function tool(name: string, args: Record<string, unknown>): Promise<RpcAnswer> {
  const a = await rpc(t, "tools/call", { name, arguments: args });
  if (a.status !== 200 || !a.body?.result || a.body.result.isError) {
    throw new Error(`${name} failed: ${a.text.slice(0, 300)}`);
  }
  return a;
}

function textOf(a: RpcAnswer): string {
  return String(a.body.result.content[0].text);
}

beforeAll(async () => {
  t = await createTestApp();
  const rs = await t.database.client.execute("SELECT id FROM users WHERE username = 'admin'");
  const userId = Number(rs.rows[0]?.id);
  const ws = t.workspaceId;
  const base = Date.parse("2026-01-01T00:00:00.000Z");
  const inserted: { ref: string; priority: number; created: number; seq: number }[] = [];
  await t.database.write(async (tx) => {
    const actor = { userId, now: new Date(base) };
    await createEpic(tx, ws, { title: "Big epic" }, actor); // EP-001
    await createUserStory(tx, ws, { epic_id: "EP-001", title: "Huge story" }, actor); // US-001
    await createUserStory(tx, ws, { epic_id: "EP-001", title: "Small story" }, actor); // US-002
    for (let i = 0; i < TOTAL; i++) {
      // Many ties on (priority, created_at): only the id breaks them.
      const created = base + (i % 37) * 60_000;
      const priority = 1 + ((i * 7) % 4);
      const long = i % 5 === 0 ? ` ${"long text ".repeat(1900)}` : "";
      const r = await createRequirement(
        tx,
        ws,
        {
          user_story_id: "US-001",
          title: `Requirement number ${i}`,
          description: `Body of requirement ${i} with "quotes" and\nnewlines.${long}`,
          type: "Functional",
          priority,
        },
        { userId, now: new Date(created) },
      );
      inserted.push({ ref: r.reference_id, priority, created, seq: i });
    }
    for (let i = 0; i < CRITERIA; i++) {
      await createAcceptanceCriterion(
        tx,
        ws,
        { user_story_id: "US-001", description: `Given case ${i}, when it runs, then it passes.` },
        actor,
      );
    }
    await createRequirement(
      tx,
      ws,
      { user_story_id: "US-002", title: "Small one", type: "Functional", priority: 1 },
      actor,
    );
  });
  expected = [...inserted]
    .sort((a, b) => a.priority - b.priority || b.created - a.created || b.seq - a.seq)
    .map((r) => r.ref);
  expectedCriteria = Array.from({ length: CRITERIA }, (_, i) => `AC-${String(i + 1).padStart(3, "0")}`);
}, 120_000);

afterAll(async () => t?.close());

describe("get_user_story_requirements", () => {
  test("every page is under the cap, keeps the spec's text with the total, and the pages walk all 3,000 once in order", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    let cutByBytes = 0;
    do {
      // 400 a page: with every fifth description ~19 KB, the byte cap ends pages before their limit (the
      // text carries the descriptions once; the structured content does not repeat them).
      const a = await tool("get_user_story_requirements", {
        user_story: "US-001",
        limit: 400,
        ...(cursor ? { cursor } : {}),
      });
      pages++;
      expect(bytes(a)).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
      const out = a.body.result.structuredContent;
      const text = textOf(a);
      expect(out.count).toBe(TOTAL);
      expect(text.startsWith(`Found ${TOTAL} requirements for user story US-001:\n\n`)).toBe(true);
      const ids = (out.requirements as { reference_id: string }[]).map((r) => r.reference_id);
      // The text shows the same entries as the structured content, in the same order.
      expect([...text.matchAll(/^(REQ-\d+): Requirement number/gm)].map((m) => m[1])).toEqual(ids);
      seen.push(...ids);
      cursor = out.next_cursor;
      const lines = text.split("\n");
      const last = lines[lines.length - 1] ?? "";
      if (cursor) {
        // The last line says how to get the next page, cursor included.
        expect(last).toContain("get_user_story_requirements");
        expect(last).toContain(`"${cursor}"`);
        expect(last).toContain(`${seen.length} of ${TOTAL}`);
        if (ids.length < 400) cutByBytes++;
      } else {
        expect(last).toMatch(/^Created: /);
      }
      expect(pages).toBeLessThan(100);
    } while (cursor);
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(TOTAL);
    expect(cutByBytes).toBeGreaterThan(0);
  }, 120_000);

  test("limit up to 1000 is honoured but the byte cap still ends a page early, with a valid cursor", async () => {
    const first = await tool("get_user_story_requirements", { user_story: "US-001", limit: 1000 });
    expect(bytes(first)).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
    const out = first.body.result.structuredContent;
    expect(out.requirements.length).toBeLessThan(1000);
    expect(out.next_cursor).toBeDefined();
    const second = await tool("get_user_story_requirements", {
      user_story: "US-001",
      limit: 10,
      cursor: out.next_cursor,
    });
    const ids = second.body.result.structuredContent.requirements.map(
      (r: { reference_id: string }) => r.reference_id,
    );
    expect(ids).toEqual(expected.slice(out.requirements.length, out.requirements.length + 10));
    const small = await tool("get_user_story_requirements", { user_story: "US-001", limit: 3 });
    expect(
      small.body.result.structuredContent.requirements.map((r: { reference_id: string }) => r.reference_id),
    ).toEqual(expected.slice(0, 3));
  });

  test("a normal story is one page, exactly the spec's text", async () => {
    const a = await tool("get_user_story_requirements", { user_story: "US-002" });
    expect(textOf(a)).toBe(
      "Found 1 requirements for user story US-002:\n\nREQ-3001: Small one (Priority: 1, Status: Draft, Type: Functional, Creator: admin, Assignee: Unassigned)\n(no description)\nCreated: 2026-01-01T00:00:00.000Z",
    );
    expect(a.body.result.structuredContent.next_cursor).toBeUndefined();
  });

  test("a cursor of another story, or a made-up one, is refused as invalid params", async () => {
    const first = await tool("get_user_story_requirements", { user_story: "US-001", limit: 1 });
    const cursor = first.body.result.structuredContent.next_cursor;
    const other = await rpc(t, "tools/call", {
      name: "get_user_story_requirements",
      arguments: { user_story: "US-002", cursor },
    });
    expect(other.body.error.code).toBe(-32602);
    expect(other.body.error.message).toContain("cursor");
    const bogus = await rpc(t, "tools/call", {
      name: "get_user_story_requirements",
      arguments: { user_story: "US-001", cursor: "bm9wZQ" },
    });
    expect(bogus.body.error.code).toBe(-32602);
  });
});

type Story = {
  reference_id: string;
  requirements: { reference_id: string }[];
  acceptance_criteria: { reference_id: string }[];
};

describe("get_user_story and epic_hierarchy", () => {
  test("get_user_story pages its requirements, then its criteria, each page under the cap", async () => {
    const reqs: string[] = [];
    const criteria: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const a = await tool("get_user_story", { user_story_id: "US-001", ...(cursor ? { cursor } : {}) });
      pages++;
      expect(bytes(a)).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
      const out = a.body.result.structuredContent as Story & { next_cursor?: string };
      expect(out.reference_id).toBe("US-001");
      reqs.push(...out.requirements.map((r) => r.reference_id));
      criteria.push(...out.acceptance_criteria.map((c) => c.reference_id));
      cursor = out.next_cursor;
      expect(pages).toBeLessThan(100);
    } while (cursor);
    expect(reqs).toEqual(expected);
    expect(criteria).toEqual(expectedCriteria);
  }, 120_000);

  test("epic_hierarchy pages through its stories, each page under the cap, nothing lost or repeated", async () => {
    const reqs = new Map<string, string[]>();
    const criteria: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const a = await tool("epic_hierarchy", { epic_id: "EP-001", ...(cursor ? { cursor } : {}) });
      pages++;
      expect(bytes(a)).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
      const out = a.body.result.structuredContent as { user_stories: Story[]; next_cursor?: string };
      for (const s of out.user_stories) {
        reqs.set(s.reference_id, [
          ...(reqs.get(s.reference_id) ?? []),
          ...s.requirements.map((r) => r.reference_id),
        ]);
        criteria.push(...s.acceptance_criteria.map((c) => c.reference_id));
      }
      cursor = out.next_cursor;
      expect(pages).toBeLessThan(100);
    } while (cursor);
    expect([...reqs.keys()]).toEqual(["US-001", "US-002"]);
    expect(reqs.get("US-001")).toEqual(expected);
    expect(reqs.get("US-002")).toEqual(["REQ-3001"]);
    expect(criteria).toEqual(expectedCriteria);
  }, 120_000);
});

describe("small pages walk a small epic exactly like one big page", () => {
  test.each([1, 2, 3, 5])("limit %i", async (limit) => {
    // EP-002: a story with two requirements and a criterion, an empty story, a story with one criterion.
    if (
      !(await rpc(t, "tools/call", { name: "get_epic", arguments: { epic_id: "EP-002" } })).body.result
        ?.structuredContent
    ) {
      await tool("create_epic", { title: "Small epic" });
      await tool("create_user_story", { epic_id: "EP-002", title: "A" });
      await tool("create_requirement", {
        user_story_id: "US-003",
        title: "a1",
        type: "Functional",
        priority: 2,
      });
      await tool("create_requirement", {
        user_story_id: "US-003",
        title: "a2",
        type: "Functional",
        priority: 1,
      });
      await tool("create_acceptance_criteria", { user_story_id: "US-003", description: "a criterion" });
      await tool("create_user_story", { epic_id: "EP-002", title: "B" });
      await tool("create_user_story", { epic_id: "EP-002", title: "C" });
      await tool("create_acceptance_criteria", { user_story_id: "US-005", description: "c criterion" });
    }
    const flatten = (stories: Story[]) =>
      stories.flatMap((s) => [
        s.reference_id,
        ...s.requirements.map((r) => r.reference_id),
        ...s.acceptance_criteria.map((c) => c.reference_id),
      ]);
    const whole = (await tool("epic_hierarchy", { epic_id: "EP-002" })).body.result.structuredContent;
    expect(whole.next_cursor).toBeUndefined();
    const expectedWalk = flatten(whole.user_stories);
    expect(expectedWalk).toEqual(["US-003", "REQ-3003", "REQ-3002", "AC-041", "US-004", "US-005", "AC-042"]);
    const walked: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const out = (await tool("epic_hierarchy", { epic_id: "EP-002", limit, ...(cursor ? { cursor } : {}) }))
        .body.result.structuredContent as { user_stories: Story[]; next_cursor?: string };
      for (const id of flatten(out.user_stories)) {
        // A story continued from the last page is shown again at the top: count it once.
        if (id.startsWith("US-") && walked.includes(id)) continue;
        walked.push(id);
      }
      cursor = out.next_cursor;
      pages++;
      expect(pages).toBeLessThan(20);
    } while (cursor);
    expect(walked).toEqual(expectedWalk);
  });
});

describe("resources and prompts of the same data are bounded", () => {
  test("user-story://…/requirements is the first page and says which call gets the rest", async () => {
    const a = await rpc(t, "resources/read", { uri: "user-story://US-001/requirements" });
    expect(bytes(a)).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
    const text = String(a.body.result.contents[0].text);
    expect(text.startsWith(`Found ${TOTAL} requirements for user story US-001:`)).toBe(true);
    const last = text.split("\n").pop() ?? "";
    expect(last).toMatch(/get_user_story_requirements .*cursor "[^"]+"/);
    // The cursor the resource names really continues the list.
    const cursor = /cursor "([^"]+)"/.exec(last)?.[1];
    const shown = [...text.matchAll(/^(REQ-\d+): /gm)].map((m) => m[1]);
    const next = await tool("get_user_story_requirements", { user_story: "US-001", cursor, limit: 5 });
    expect(
      next.body.result.structuredContent.requirements.map((r: { reference_id: string }) => r.reference_id),
    ).toEqual(expected.slice(shown.length, shown.length + 5));
  });

  test("epic://…/hierarchy and user-story://… stay under the cap and point to the paged tools", async () => {
    const hierarchy = await rpc(t, "resources/read", { uri: "epic://EP-001/hierarchy" });
    expect(bytes(hierarchy)).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
    expect(String(hierarchy.body.result.contents[0].text)).toMatch(/epic_hierarchy .*cursor "[^"]+"/);
    const story = await rpc(t, "resources/read", { uri: "user-story://US-001" });
    expect(bytes(story)).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
    expect(String(story.body.result.contents[0].text)).toContain("AC-040");
  });

  test.each([
    ["suggest_acceptance_criteria", { user_story_id: "US-001" }, "get_user_story"],
    ["suggest_test_scenarios", { user_story_id: "US-001" }, "get_user_story"],
    ["decompose_epic", { epic_id: "EP-001" }, "epic_hierarchy"],
    ["generate_user_story", { epic_id: "EP-001" }, "epic_hierarchy"],
  ])("prompt %s is bounded and says where the rest is", async (name, args, next) => {
    const a = await rpc(t, "prompts/get", { name, arguments: args });
    expect(a.body.result).toBeDefined();
    expect(bytes(a)).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
    expect(a.text).toContain(next);
  });
});

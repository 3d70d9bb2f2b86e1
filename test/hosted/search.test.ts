/** search_global and search_requirements: FTS5 bm25 ranking, exact reference id first, snippets, cursors, filters. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createHarness, fails, type Harness, ok } from "./harness.js";

type Hit = {
  reference_id: string;
  kind?: string;
  snippet: string;
  score: number;
  exact_match: boolean;
} & Record<string, unknown>;
type Results = { mode: string; query: string; items: Hit[]; next_cursor?: string };

let h: Harness;
let client: Client;
let outsider: Client;

beforeAll(async () => {
  h = await createHarness();
  client = await h.connect(await h.member("sam", "editor"));
  outsider = await h.connect(await h.member("olga", "editor", "elsewhere"));
  await ok(client, "create_epic", {
    title: "Payments",
    description: "Everything about paying, and refund handling.",
  }); // EP-001
  await ok(client, "create_user_story", {
    epic_id: "EP-001",
    title: "Pay by card",
    description: "Card payments.",
  }); // US-001
  await ok(client, "create_user_story", { epic_id: "EP-001", title: "Refund an order" }); // US-002
  const reqs: [string, string, string, string, number][] = [
    ["US-001", "Card tokenisation", "Card numbers are replaced by tokens from the PSP.", "Security", 1], // REQ-001
    ["US-001", "Authorise payments", "Each payment is authorised before the order ships.", "Functional", 2], // REQ-002
    [
      "US-002",
      "Partial refunds",
      "A refund may cover part of a payment; see REQ-005 for limits.",
      "Functional",
      3,
    ], // REQ-003
    [
      "US-002",
      "Refund audit trail",
      "Every refund is logged with who, when and how much (REQ-005).",
      "Security",
      2,
    ], // REQ-004
    ["US-002", "Refund limits", "Refunds above 500 EUR need a second approver.", "Constraint", 1], // REQ-005
  ];
  for (const [story, title, description, type, priority] of reqs) {
    await ok(client, "create_requirement", { user_story_id: story, title, description, type, priority });
  }
  await ok(client, "update_requirement", { requirement_id: "REQ-004", status: "Active" });
  await ok(client, "create_acceptance_criteria", {
    user_story_id: "US-002",
    description: "Given a paid order, when a refund is requested, then the refund is issued within 5 days.",
  });
  // Another workspace with matching words: must never show up.
  await ok(outsider, "create_epic", { title: "Refund secrets of another team" });
});

afterAll(async () => {
  await h.close();
});

const ids = (r: Results) => r.items.map((i) => i.reference_id);

describe("search_requirements", () => {
  test("an exact reference id ranks first, then the requirements that mention it", async () => {
    for (const query of ["REQ-005", "req-5", " Req-0005 "]) {
      const r = await ok<Results>(client, "search_requirements", { query });
      expect(r.items[0]).toMatchObject({
        reference_id: "REQ-005",
        exact_match: true,
        title: "Refund limits",
      });
      expect(ids(r).slice(1).sort()).toEqual(["REQ-003", "REQ-004"]);
      expect(r.items.slice(1).every((i) => !i.exact_match)).toBe(true);
      expect(r.items[1]?.snippet).toContain("**REQ-005**");
    }
  });

  test("words: all must match; a title hit outranks a text hit; snippets mark the matches; lexical mode", async () => {
    const r = await ok<Results>(client, "search_requirements", { query: "refund" });
    expect(r.mode).toBe("lexical");
    expect(new Set(ids(r))).toEqual(new Set(["REQ-003", "REQ-004", "REQ-005"]));
    // "Refund" is in the titles of REQ-004 and REQ-005 but only in REQ-003's text.
    expect(ids(r)[2]).toBe("REQ-003");
    expect(r.items.every((i) => i.snippet.includes("**"))).toBe(true);
    expect(r.items.map((i) => i.score)).toEqual([...r.items.map((i) => i.score)].sort((a, b) => b - a));
    expect(ids(await ok<Results>(client, "search_requirements", { query: "refund approver" }))).toEqual([
      "REQ-005",
    ]);
    expect(ids(await ok<Results>(client, "search_requirements", { query: "refund unicorn" }))).toEqual([]);
  });

  test("filters by status, type and priority; each hit carries its requirement's facts", async () => {
    const active = await ok<Results>(client, "search_requirements", { query: "refund", status: "Active" });
    expect(ids(active)).toEqual(["REQ-004"]);
    expect(active.items[0]).toMatchObject({
      user_story_id: "US-002",
      status: "Active",
      priority: 2,
      type_name: "Security",
    });
    expect(
      ids(await ok<Results>(client, "search_requirements", { query: "refund", type: "constraint" })),
    ).toEqual(["REQ-005"]);
    expect(ids(await ok<Results>(client, "search_requirements", { query: "refund", priority: 3 }))).toEqual([
      "REQ-003",
    ]);
    expect(await fails(client, "search_requirements", { query: "refund", type: "Nope" })).toContain(
      'Unknown requirement type "Nope"',
    );
  });

  test("cursors page through the same ranking without gaps or repeats, and belong to their query", async () => {
    const all = await ok<Results>(client, "search_requirements", { query: "refund" });
    const paged: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page: Results = await ok<Results>(client, "search_requirements", {
        query: "refund",
        limit: 1,
        ...(cursor ? { cursor } : {}),
      });
      paged.push(...ids(page));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(paged).toEqual(ids(all));
    expect(pages).toBe(3);
    // The same cursor gives the same page again (stable), and another query refuses it.
    const first = await ok<Results>(client, "search_requirements", { query: "refund", limit: 1 });
    const again1 = await ok<Results>(client, "search_requirements", {
      query: "refund",
      limit: 1,
      cursor: first.next_cursor,
    });
    const again2 = await ok<Results>(client, "search_requirements", {
      query: "refund",
      limit: 1,
      cursor: first.next_cursor,
    });
    expect(ids(again1)).toEqual(ids(again2));
    expect(
      await fails(client, "search_requirements", { query: "payment", cursor: first.next_cursor }),
    ).toContain("cursor does not belong");
    expect(
      await fails(client, "search_requirements", {
        query: "refund",
        status: "Draft",
        cursor: first.next_cursor,
      }),
    ).toContain("cursor does not belong");
  });

  test("edits are searchable at once (triggers keep the index)", async () => {
    await ok(client, "update_requirement", {
      requirement_id: "REQ-002",
      description: "Authorisation uses 3-D Secure.",
    });
    expect(ids(await ok<Results>(client, "search_requirements", { query: "secure" }))).toEqual(["REQ-002"]);
    expect(ids(await ok<Results>(client, "search_requirements", { query: "ships" }))).toEqual([]);
  });

  test("FTS5 syntax in the query is taken as words, never as operators", async () => {
    for (const query of [
      'refund OR "',
      "NEAR(refund",
      "refund*",
      "title:refund",
      "-refund",
      "refund AND NOT",
    ]) {
      const r = await ok<Results>(client, "search_requirements", { query });
      expect(Array.isArray(r.items), query).toBe(true);
    }
    expect(await fails(client, "search_requirements", { query: '" - *' })).toContain("query");
    expect(await fails(client, "search_requirements", { query: "" })).toContain("query");
    expect(await fails(client, "search_requirements", { query: "x", limit: 101 })).toContain("limit");
  });
});

describe("search_global", () => {
  test("finds every kind, filters by kind and status, and puts an exact id first", async () => {
    const r = await ok<Results>(client, "search_global", { query: "refund" });
    const kinds = new Set(r.items.map((i) => i.kind));
    expect(kinds).toEqual(new Set(["epic", "user_story", "requirement", "acceptance_criterion"]));
    const stories = await ok<Results>(client, "search_global", {
      query: "refund",
      entity_types: ["user_story"],
    });
    expect(ids(stories)).toEqual(["US-002"]);
    const active = await ok<Results>(client, "search_global", { query: "refund", status: "Active" });
    expect(ids(active)).toEqual(["REQ-004"]);
    const backlog = await ok<Results>(client, "search_global", { query: "refund", status: "Backlog" });
    expect(new Set(ids(backlog))).toEqual(new Set(["EP-001", "US-002"]));
    const exact = await ok<Results>(client, "search_global", { query: "us-2" });
    expect(exact.items[0]).toMatchObject({ reference_id: "US-002", kind: "user_story", exact_match: true });
    const ac = await ok<Results>(client, "search_global", { query: "AC-001" });
    expect(ac.items[0]).toMatchObject({
      reference_id: "AC-001",
      kind: "acceptance_criterion",
      exact_match: true,
    });
  });

  test("another workspace's entities are never found, even by their reference id", async () => {
    const mine = await ok<Results>(client, "search_global", { query: "secrets" });
    expect(mine.items).toEqual([]);
    const theirs = await ok<Results>(outsider, "search_global", { query: "refund" });
    expect(theirs.items.map((i) => i.title)).toEqual(["Refund secrets of another team"]);
    const byId = await ok<Results>(outsider, "search_global", { query: "REQ-005" });
    expect(byId.items).toEqual([]);
  });

  test("pages with limit and cursor", async () => {
    const all = await ok<Results>(client, "search_global", { query: "refund", limit: 100 });
    const first = await ok<Results>(client, "search_global", { query: "refund", limit: 3 });
    const second = await ok<Results>(client, "search_global", {
      query: "refund",
      limit: 100,
      cursor: first.next_cursor,
    });
    expect([...ids(first), ...ids(second)]).toEqual(ids(all));
    expect(second.next_cursor).toBeUndefined();
  });
});

describe("a word that is also a workspace term", () => {
  // Every search row indexes `ws<id>` in a column of its own; words are matched without a column filter
  // (search-ranking.ts wordsMatch) unless they could be such a term.
  test("`ws<n>` finds the rows whose text has it, not every row of workspace n", async () => {
    const w = await createHarness();
    try {
      const c = await w.connect(await w.member("wes", "editor"));
      await ok(c, "create_epic", { title: "Gateways" }); // EP-001
      await ok(c, "create_user_story", { epic_id: "EP-001", title: "Route payments" }); // US-001
      for (let i = 0; i < 3; i++) {
        await ok(c, "create_requirement", {
          user_story_id: "US-001",
          title: `Plain requirement ${i}`,
          description: "Nothing to see.",
          type: "Functional",
          priority: 1,
        });
      }
      await ok(c, "create_requirement", {
        user_story_id: "US-001",
        title: "Gateway list",
        description: "Routed through WS1, ws2, ws3 and ws4.",
        type: "Functional",
        priority: 1,
      }); // REQ-004
      for (const query of ["ws1", "ws2", "ws3", "ws4", "WS2 routed"]) {
        expect(ids(await ok<Results>(c, "search_requirements", { query }))).toEqual(["REQ-004"]);
        expect(ids(await ok<Results>(c, "search_global", { query }))).toEqual(["REQ-004"]);
      }
      expect(ids(await ok<Results>(c, "search_requirements", { query: "ws5" }))).toEqual([]);
    } finally {
      await w.close();
    }
  });
});

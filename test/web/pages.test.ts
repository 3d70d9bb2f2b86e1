/**
 * The web app's pages over real HTTP and real libSQL, without a browser: every page renders what the tools
 * return, edits go through the tools (audited as channel "web", versioned), a stale edit is refused with
 * what changed, comments and verdicts land, a history diff shows.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostedServer } from "../helpers/hosted.js";
import { seedHierarchy, toolHttp } from "../helpers/rpc-http.js";
import { pushTraces, snapshotBody } from "../helpers/traces.js";
import { startWebServer, WebClient } from "./web-client.js";

let server: HostedServer;
let web: WebClient;
let seeded: Awaited<ReturnType<typeof seedHierarchy>>;

beforeAll(async () => {
  server = await startWebServer();
  seeded = await seedHierarchy(server.url, server.ownerToken, 2, "Pages");
  web = new WebClient(server.url);
  await web.signIn(server.ownerToken);
});
afterAll(async () => {
  await server.close();
});

describe("pages", () => {
  it("home shows counts by status, coverage, suspects, reviews and recent changes", async () => {
    const home = await web.get("/");
    expect(home.status).toBe(200);
    for (const text of [
      "Counts by status",
      "Requirements",
      "Coverage",
      "Suspect links",
      "Open reviews",
      "Recent changes",
    ]) {
      expect(home.text).toContain(text);
    }
    expect(home.text).toContain(seeded.requirements[0]);
  });

  it("the tree shows an epic's stories and requirements, and filters them", async () => {
    const epic = seeded.epics[0] as string;
    const tree = await web.get(`/tree?epic=${epic}`);
    expect(tree.status).toBe(200);
    expect(tree.text).toContain(seeded.stories[0]);
    expect(tree.text).toContain(seeded.requirements[0]);
    expect(tree.text).toContain(seeded.requirements[1]);
    const critical = await web.get(`/tree?epic=${epic}&priority=1`);
    expect(critical.text).toContain(seeded.requirements[1]);
    expect(critical.text).not.toContain(`>${seeded.requirements[0]}<`);
    const none = await web.get(`/tree?epic=${epic}&status=Obsolete`);
    expect(none.text).toContain("No requirement matches these filters.");
  });

  it("search uses the full-text search and pages", async () => {
    const found = await web.get("/search?q=confidential");
    expect(found.status).toBe(200);
    expect(found.text).toContain(seeded.requirements[0]);
    for (let i = 0; i < 25; i++) {
      await toolHttp(server.url, server.ownerToken, "create_requirement", {
        user_story_id: seeded.stories[1],
        title: `Pageable needle ${i}`,
        type: "Functional",
        priority: 3,
      });
    }
    const first = await web.get("/search?q=needle");
    expect(first.text).toContain('rel="next"');
    const next = /href="(\/search\?[^"]*cursor=[^"]*)"/.exec(first.text)?.[1] as string;
    const second = await web.get(next.replace(/&amp;/g, "&"));
    expect(second.status).toBe(200);
    expect(second.text).toContain("Pageable needle");
  });

  it("the requirement page shows fields, relationships both ways, traces, history, comments, approvals", async () => {
    const [r1, r2] = seeded.requirements as [string, string];
    const page = await web.get(`/requirements/${r1}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Relationships: incoming");
    expect(page.text).toContain(`/requirements/${r2}`);
    expect(page.text).toContain("Traces");
    expect(page.text).toContain("History");
    const other = await web.get(`/requirements/${r2}`);
    expect(other.text).toContain(`/requirements/${r1}`);
    expect((await web.get(`/stories/${seeded.stories[0]}`)).status).toBe(200);
    expect((await web.get(`/epics/${seeded.epics[0]}`)).status).toBe(200);
    expect((await web.get("/requirements/REQ-999")).status).toBe(404);
  });

  it("shows traces per repository on the requirement page and the coverage summary on home", async () => {
    const [r1, r2] = seeded.requirements as [string, string];
    for (const repository of ["acme/api", "acme/web"]) {
      const res = await pushTraces(
        server,
        snapshotBody({
          repository,
          citations: [
            { id: r1, file: `${repository}/pay.ts`, line: 7 },
            { id: r1, kind: "test", file: `${repository}/pay.test.ts`, line: 3, test_name: "pays" },
            { id: r2, kind: "impl", revision: 1, file: "old.ts" },
          ],
        }),
      );
      expect(res.status).toBe(201);
    }
    const page = await web.get(`/requirements/${r1}`);
    expect(page.text).toContain("acme/api");
    expect(page.text).toContain("acme/web");
    expect(page.text).toContain("acme/api/pay.ts:7");
    expect(page.text).toContain("pays");
    const home = await web.get("/");
    expect(home.text).toContain("over 2 repositories");
    // The coverage filter of the tree: r1 is implemented and tested, r2 only implemented.
    const covered = await web.get(`/tree?epic=${seeded.epics[0]}&coverage=covered`);
    expect(covered.text).toContain(`>${r1}<`);
    expect(covered.text).not.toContain(`>${r2}<`);
    const implOnly = await web.get(`/tree?epic=${seeded.epics[0]}&coverage=impl_only`);
    expect(implOnly.text).toContain(`>${r2}<`);
    expect(implOnly.text).not.toContain(`>${r1}<`);
  });

  it("creates an epic, a story, a requirement and a criterion through the tools, audited as web", async () => {
    await web.get("/epics/new");
    const epic = await web.post("/epics/new", {
      title: "Web epic",
      description: "Made **in** the browser",
      priority: "2",
    });
    expect(epic.status).toBe(303);
    const epicId = /EP-\d+/.exec(epic.location as string)?.[0] as string;
    await web.get(`/stories/new?epic=${epicId}`);
    const story = await web.post("/stories/new", { epic_id: epicId, title: "Web story", priority: "3" });
    const storyId = /US-\d+/.exec(story.location as string)?.[0] as string;
    const req = await web.post("/requirements/new", {
      user_story_id: storyId,
      title: "Web requirement",
      type: "Functional",
      priority: "1",
    });
    expect(req.status).toBe(303);
    const ac = await web.post("/criteria/new", { user_story_id: storyId, description: "Given x, then y" });
    expect(ac.status).toBe(303);
    const audit = await server.database.client.execute(
      "SELECT target FROM audit_events WHERE channel = 'web' AND target LIKE 'create_%' ORDER BY id",
    );
    expect(audit.rows.map((r) => r.target)).toEqual([
      "create_epic",
      "create_user_story",
      "create_requirement",
      "create_acceptance_criteria",
    ]);
    const revs = await server.database.client.execute({
      sql: "SELECT tool FROM revisions WHERE reference_id = ?",
      args: [epicId],
    });
    expect(revs.rows.map((r) => r.tool)).toEqual(["create_epic"]);
    const invalid = await web.post("/requirements/new", {
      user_story_id: storyId,
      title: "",
      type: "Functional",
      priority: "1",
    });
    expect(invalid.status).toBe(400);
  });

  it("refuses a stale edit and shows what changed; a fresh edit goes through", async () => {
    const r1 = seeded.requirements[0] as string;
    const form = await web.get(`/requirements/${r1}/edit`);
    expect(form.status).toBe(200);
    const revision = /name="revision" value="(\d+)"/.exec(form.text)?.[1] as string;
    const updatedAt = /name="updated_at" value="([^"]+)"/.exec(form.text)?.[1] as string;
    await toolHttp(server.url, server.ownerToken, "update_requirement", {
      requirement_id: r1,
      title: "Changed by someone else",
    });
    const stale = await web.post(`/requirements/${r1}/edit`, {
      revision,
      updated_at: updatedAt,
      title: "My edit",
      description: "",
      type: "Functional",
      priority: "2",
      status: "Draft",
      assignee: "",
    });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain("changed since you opened this form");
    expect(stale.text).toContain("<ins>Changed by someone else</ins>");
    expect(stale.text).toContain('value="My edit"');
    const title = await toolHttp(server.url, server.ownerToken, "get_requirement", { requirement_id: r1 });
    expect(title.title).toBe("Changed by someone else");
    const revision2 = /name="revision" value="(\d+)"/.exec(stale.text)?.[1] as string;
    const updated2 = /name="updated_at" value="([^"]+)"/.exec(stale.text)?.[1] as string;
    const fresh = await web.post(`/requirements/${r1}/edit`, {
      revision: revision2,
      updated_at: updated2,
      title: "My edit",
      description: "Now **bold**",
      type: "Functional",
      priority: "2",
      status: "Draft",
      assignee: "",
      change_note: "from the web",
    });
    expect(fresh.status).toBe(303);
    const after = await toolHttp(server.url, server.ownerToken, "get_requirement", { requirement_id: r1 });
    expect(after.title).toBe("My edit");
    const page = await web.get(`/requirements/${r1}`);
    expect(page.text).toContain("<strong>bold</strong>");
    expect(page.text).toContain("from the web");
  });

  it("comments, approves and requests changes; shows a diff between two revisions", async () => {
    const r2 = seeded.requirements[1] as string;
    const page = await web.get(`/requirements/${r2}`);
    const revision = /name="revision" value="(\d+)"/.exec(page.text)?.[1] as string;
    expect((await web.post("/comments", { id: r2, text: "Looks *good*" })).status).toBe(303);
    expect((await web.post("/verdicts", { id: r2, revision, verdict: "approved" })).status).toBe(303);
    const refused = await web.post("/verdicts", {
      id: r2,
      revision,
      verdict: "changes_requested",
      comment: "",
    });
    expect(refused.status).toBe(400);
    expect(
      (await web.post("/verdicts", { id: r2, revision, verdict: "changes_requested", comment: "Tighten it" }))
        .status,
    ).toBe(303);
    const shown = await web.get(`/requirements/${r2}`);
    expect(shown.text).toContain("Looks <em>good</em>");
    expect(shown.text).toContain("approved");
    expect(shown.text).toContain("Tighten it");
    await toolHttp(server.url, server.ownerToken, "update_requirement", {
      requirement_id: r2,
      description: "new words here",
    });
    const diff = await web.get(`/requirements/${r2}?from=1&to=2`);
    expect(diff.text).toContain('id="diff"');
    expect(diff.text).toContain("<ins>new words here</ins>");
  });

  it("home lists open reviews with their reviewer; a criterion's link leads to its story", async () => {
    await toolHttp(server.url, server.ownerToken, "request_review", {
      id: seeded.requirements[0],
      reviewers: ["admin"],
    });
    const home = await web.get("/");
    expect(home.text).toMatch(/review by admin/);
    const criterion = await web.get(`/criteria/${seeded.criteria[0]}`);
    expect(criterion.status).toBe(303);
    expect(criterion.location).toBe(`/stories/${seeded.stories[0]}#criteria`);
  });

  it("creates a baseline of an epic", async () => {
    const reply = await web.post("/baselines", { name: "web-release", epic_id: seeded.epics[0] as string });
    expect(reply.status).toBe(303);
    expect(reply.location).toBe(`/epics/${seeded.epics[0]}?baseline=web-release`);
    const listed = await toolHttp(server.url, server.ownerToken, "list_baselines", {});
    expect(JSON.stringify(listed)).toContain("web-release");
  });
});

/** Change control, review and approval: comments, reviews, verdicts bound to revisions, the Active gate. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createHarness, fails, type Harness, ok } from "./harness.js";

type Comment = { comment_id: number; revision: number; username: string; text: string; resolved: boolean };
type Review = {
  reference_id: string;
  reviewer: string;
  status: string;
  current_revision: number;
  voided_verdict: { verdict: string; revision: number } | null;
};

let h: Harness;
let carol: Client; // editor, writes the requirements
let dave: Client; // editor, reviews
let ada: Client; // admin
let vic: Client; // viewer

beforeAll(async () => {
  h = await createHarness();
  carol = await h.connect(await h.member("carol", "editor"));
  dave = await h.connect(await h.member("dave", "editor"));
  ada = await h.connect(await h.member("ada", "admin"));
  vic = await h.connect(await h.member("vic", "viewer"));
  await ok(carol, "create_epic", { title: "Checkout" });
  await ok(carol, "create_user_story", { epic_id: "EP-001", title: "Cart" });
  for (const title of ["Fast cart", "Cart badge"]) {
    await ok(carol, "create_requirement", {
      user_story_id: "US-001",
      title,
      type: "Functional",
      priority: 2,
    });
  }
});
afterAll(async () => h.close());

describe("comments", () => {
  test("viewers comment; authors and editors resolve; comments are bound to the revision", async () => {
    const c = await ok<Comment>(vic, "add_comment", { id: "req-1", text: "Which percentile?" });
    expect(c).toMatchObject({ revision: 1, username: "vic", resolved: false });
    await ok(carol, "update_requirement", { requirement_id: "REQ-001", description: "p95" });
    const other = await ok<Comment>(carol, "add_comment", { id: "REQ-001", text: "Answered: p95." });
    expect(other.revision).toBe(2);
    expect(await fails(vic, "resolve_comment", { comment_id: other.comment_id })).toMatch(
      /^Forbidden: resolve_comment needs the editor role/,
    );
    expect(await ok<Comment>(vic, "resolve_comment", { comment_id: c.comment_id })).toMatchObject({
      resolved: true,
    });
    await ok(dave, "resolve_comment", { comment_id: other.comment_id });
    const listed = await ok<{ comments: Comment[] }>(vic, "list_comments", { id: "REQ-001" });
    expect(listed.comments.map((x) => [x.text, x.revision, x.resolved])).toEqual([
      ["Which percentile?", 1, true],
      ["Answered: p95.", 2, true],
    ]);
    expect(await fails(vic, "resolve_comment", { comment_id: 999 })).toMatch(/Comment not found: 999/);
    expect(await fails(vic, "add_comment", { id: "REQ-099", text: "x" })).toMatch(
      /Entity not found: REQ-099/,
    );
  });
});

describe("reviews and approvals", () => {
  test("approve binds to a revision; a stale approve is refused naming the current one; a change voids it", async () => {
    await ok(carol, "request_review", { id: "REQ-001", reviewers: ["dave", "ADA"] });
    const mine = await ok<{ reviews: Review[] }>(dave, "list_reviews", { assigned_to_me: true });
    expect(mine.reviews).toEqual([expect.objectContaining({ reference_id: "REQ-001", status: "pending" })]);

    expect(await fails(dave, "approve", { id: "REQ-001", revision: 1 })).toMatch(
      /REQ-001 is at revision 2, not 1.*approve with revision 2/,
    );
    expect(await fails(vic, "approve", { id: "REQ-001", revision: 2 })).toMatch(/^Forbidden/);
    const verdict = await ok(dave, "approve", { id: "REQ-001", revision: 2 });
    expect(verdict).toEqual({
      reference_id: "REQ-001",
      revision: 2,
      verdict: "approved",
      approvals_of_current_revision: 1,
    });
    expect((await ok<{ reviews: Review[] }>(vic, "list_reviews", { status: "approved" })).reviews).toEqual([
      expect.objectContaining({ reviewer: "dave", status: "approved", current_revision: 2 }),
    ]);

    await ok(carol, "update_requirement", { requirement_id: "REQ-001", title: "Fast cart page" });
    const after = await ok<{ reviews: Review[] }>(dave, "list_reviews", { assigned_to_me: true });
    expect(after.reviews[0]).toMatchObject({
      status: "pending",
      current_revision: 3,
      voided_verdict: { verdict: "approved", revision: 2 },
    });

    await ok(ada, "request_changes", { id: "REQ-001", revision: 3, comment: "Say which page." });
    const comments = await ok<{ comments: Comment[] }>(vic, "list_comments", { id: "REQ-001" });
    expect(comments.comments.at(-1)).toMatchObject({ text: "Say which page.", username: "ada", revision: 3 });
    expect(
      (await ok<{ reviews: Review[] }>(ada, "list_reviews", { assigned_to_me: true })).reviews[0],
    ).toMatchObject({ status: "changes_requested" });
    expect(await fails(carol, "request_review", { id: "REQ-001", reviewers: ["nobody"] })).toMatch(
      /No member of this workspace is called "nobody"/,
    );
  });

  test("approvals_required gates Active: admins set it, the last editor's approval does not count, the refusal names approvers", async () => {
    expect(await fails(carol, "set_approvals_required", { approvals_required: 2 })).toMatch(
      /needs the admin role/,
    );
    await ok(ada, "set_approvals_required", { approvals_required: 2 });

    // REQ-002: last edited by carol (revision 1).
    const refused = await fails(carol, "update_requirement", { requirement_id: "REQ-002", status: "Active" });
    expect(refused).toMatch(
      /REQ-002 \(revision 1\) cannot become Active: this workspace requires 2 approval/,
    );
    expect(refused).toMatch(/Who may approve: ada, dave \(/);
    expect(
      await fails(carol, "create_requirement", {
        user_story_id: "US-001",
        title: "Born active",
        type: "Functional",
        priority: 2,
        status: "Active",
      }),
    ).toMatch(/A new requirement cannot become Active/);

    await ok(carol, "approve", { id: "REQ-002", revision: 1 }); // the last editor: recorded, does not count
    await ok(dave, "approve", { id: "REQ-002", revision: 1 });
    expect(await fails(carol, "update_requirement", { requirement_id: "REQ-002", status: "Active" })).toMatch(
      /it has 1 approval\(s\)/,
    );
    await ok(ada, "approve", { id: "REQ-002", revision: 1 });
    // The approvals are of the current wording: activating may change nothing else.
    expect(
      await fails(carol, "update_requirement", { requirement_id: "REQ-002", status: "Active", priority: 1 }),
    ).toMatch(/changes nothing else \(this one also changes priority\)/);
    const active = await ok<{ status: string; revision: number }>(carol, "update_requirement", {
      requirement_id: "REQ-002",
      status: "Active",
    });
    expect(active).toMatchObject({ status: "Active", revision: 2 });

    await ok(ada, "set_approvals_required", { approvals_required: 0 });
    await ok(carol, "update_requirement", { requirement_id: "REQ-001", status: "Active" });
  });
});

/**
 * Issue item 13 (hosted part): argument errors say how to fix the call, in the same words on both faces
 * (-32602 with data.errors on /api/v1/mcp; a tool result with isError on /mcp). An unknown argument is
 * refused with a did-you-mean, a bad id shows an example, a bad priority shows the scale.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closestName } from "../../../src/protocol/argument-errors.js";
import { createTestApp, type TestApp } from "../../helpers/app.js";
import { callTool } from "./http.js";

let t: TestApp;
let requirement: string;
beforeAll(async () => {
  t = await createTestApp();
  const epic = await callTool(t, "jsonrpc", "create_epic", { title: "args epic" });
  const story = await callTool(t, "jsonrpc", "create_user_story", {
    epic_id: epic.body.result.structuredContent.reference_id,
    title: "args story",
  });
  const req = await callTool(t, "jsonrpc", "create_requirement", {
    user_story_id: story.body.result.structuredContent.reference_id,
    title: "args requirement",
    description: "d",
    type: "Functional",
    priority: 2,
  });
  requirement = req.body.result.structuredContent.reference_id;
});
afterAll(async () => t?.close());

/** Calls on both faces; returns the JSON-RPC error and checks /mcp shows the same message as isError. */
async function refused(name: string, args: Record<string, unknown>) {
  const rpc = await callTool(t, "jsonrpc", name, args);
  expect(rpc.status).toBe(200);
  expect(rpc.body.error?.code, rpc.text).toBe(-32602);
  const mcp = await callTool(t, "mcp", name, args);
  expect(mcp.body.result?.isError, mcp.text).toBe(true);
  expect(mcp.body.result.content[0].text).toBe(rpc.body.error.message);
  return rpc.body.error as { message: string; data: { errors: { field: string; message: string }[] } };
}

describe("unknown arguments", () => {
  it("`id` for `requirement_id`: refused with a did-you-mean, never silently dropped", async () => {
    const error = await refused("get_requirement", { id: requirement });
    expect(error.data.errors).toContainEqual({
      field: "id",
      message: "Unknown argument `id`; did you mean `requirement_id`?",
    });
    expect(error.message).toContain("Unknown argument `id`; did you mean `requirement_id`?");
  });

  it("an update with a misspelt field is refused instead of changing only the rest", async () => {
    const error = await refused("update_requirement", {
      requirement_id: requirement,
      titel: "renamed",
      priority: 1,
    });
    expect(error.data.errors).toEqual([
      { field: "titel", message: "Unknown argument `titel`; did you mean `title`?" },
    ]);
    const after = await callTool(t, "jsonrpc", "get_requirement", { requirement_id: requirement });
    expect(after.body.result.structuredContent).toMatchObject({ title: "args requirement", priority: 2 });
  });

  it("`id` in an update names the entity's own id first", async () => {
    const error = await refused("update_requirement", { id: requirement, title: "x" });
    expect(error.data.errors).toContainEqual({
      field: "id",
      message: "Unknown argument `id`; did you mean `requirement_id`?",
    });
  });

  it("nothing close: the valid names are listed", async () => {
    const error = await refused("create_epic", { title: "listed", zzz: 1 });
    expect(error.data.errors).toEqual([
      {
        field: "zzz",
        message:
          "Unknown argument `zzz`. Valid arguments: `title`, `description`, `priority`, `assignee`, `external_id`, `change_note`, `source`.",
      },
    ]);
  });

  it("nested objects are strict too", async () => {
    const registered = await callTool(t, "jsonrpc", "register_docset", { name: "argdocs", version: "1.0" });
    expect(registered.body.result, registered.text).toBeDefined();
    const error = await refused("upload_docset_pages", {
      docset: "argdocs",
      pages: [{ path: "a.md", content: "# A", titel: "A" }],
    });
    expect(error.data.errors).toEqual([
      { field: "pages.0.titel", message: "Unknown argument `titel`. Valid arguments: `path`, `content`." },
    ]);
  });
});

describe("formats say what a good value looks like", () => {
  it("a malformed id shows an example", async () => {
    const error = await refused("get_requirement", { requirement_id: "48" });
    expect(error.data.errors).toEqual([
      {
        field: "requirement_id",
        message: "Invalid requirement reference ID format: expected a requirement id like REQ-048",
      },
    ]);
    const story = await refused("get_user_story_requirements", { user_story: "story 47" });
    expect(story.message).toContain(
      "user_story: Invalid user story reference ID format: expected a user story id like US-047",
    );
  });

  it("a missing id says it is missing, with an example, next to the did-you-mean of the misnamed one", async () => {
    const error = await refused("get_requirement", { id: "REQ-1" });
    expect(error.data.errors).toEqual([
      { field: "id", message: "Unknown argument `id`; did you mean `requirement_id`?" },
      { field: "requirement_id", message: "Missing: pass a requirement id like REQ-048" },
    ]);
  });

  it.each([7, 0, 2.5, "high"])("priority %s shows the scale", async (priority) => {
    const error = await refused("create_epic", { title: `prio ${priority}`, priority });
    expect(error.data.errors).toEqual([
      {
        field: "priority",
        message: "Priority is a whole number from 1 to 4: 1 = Critical, 2 = High, 3 = Medium, 4 = Low",
      },
    ]);
  });
});

describe("closestName", () => {
  it.each([
    ["id", ["requirement_id"], "requirement_id"],
    ["epicId", ["epic_id", "title"], "epic_id"],
    ["descripton", ["title", "description"], "description"],
    ["titel", ["requirement_id", "title"], "title"],
    ["user_story", ["title", "user_story_id"], "user_story_id"],
    ["zzz", ["title", "description"], undefined],
  ] as const)("%s among %j → %s", (name, valid, expected) => {
    expect(closestName(name, [...valid])).toBe(expected);
  });
});

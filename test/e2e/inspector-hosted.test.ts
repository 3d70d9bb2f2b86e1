/**
 * The MCP Inspector's CLI against `/mcp` of the hosted server on Node (real HTTP, real auth): the token
 * goes in with `--header`, the transport is Streamable HTTP. Checks exit codes and the JSON printed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HostedServer, startHosted } from "../helpers/hosted.js";
import { runInspector } from "../helpers/inspector.js";

let hosted: HostedServer;
let token: string;

beforeAll(async () => {
  hosted = await startHosted();
  token = await hosted.createToken("inspector", "editor");
}, 60_000);

afterAll(async () => {
  await hosted?.close();
});

const http = () => [`${hosted.url}/mcp`, "--transport", "http", "--header", `Authorization: Bearer ${token}`];

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

describe("MCP Inspector CLI against /mcp with a token", () => {
  it("tools/list exits 0 and prints the hosted registry", async () => {
    const run = await runInspector([...http(), "--method", "tools/list"]);
    expect(run.code, run.stderr).toBe(0);
    const names = (run.json as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(["get_user_story_requirements", "create_epic", "get_epic", "search_global"]),
    );
  });

  it("tools/call creates an epic and reads it back, exit 0 both times", async () => {
    const created = await runInspector([
      ...http(),
      "--method",
      "tools/call",
      "--tool-name",
      "create_epic",
      "--tool-arg",
      "title=Inspector epic",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const result = created.json as ToolResult;
    expect(result.isError).toBeUndefined();
    const id = (result.structuredContent?.reference_id ?? "") as string;
    expect(id).toMatch(/^EP-\d{3,}$/);

    const read = await runInspector([
      ...http(),
      "--method",
      "tools/call",
      "--tool-name",
      "get_epic",
      "--tool-arg",
      `epic_id=${id}`,
    ]);
    expect(read.code, read.stderr).toBe(0);
    const got = read.json as ToolResult;
    expect(got.structuredContent).toMatchObject({ reference_id: id, title: "Inspector epic" });
  });

  it("the user-story tool's format error comes back as an isError result naming the rule", async () => {
    const run = await runInspector([
      ...http(),
      "--method",
      "tools/call",
      "--tool-name",
      "get_user_story_requirements",
      "--tool-arg",
      "user_story=USER-047",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const result = run.json as ToolResult;
    expect(result.isError).toBe(true);
    expect(result.content[0]?.text).toContain("Invalid user story reference ID format");
  });

  it("without the token the inspector cannot connect and exits 1", async () => {
    const run = await runInspector([`${hosted.url}/mcp`, "--transport", "http", "--method", "tools/list"]);
    expect(run.code).toBe(1);
    expect(run.json).toBeUndefined();
    expect(`${run.stdout}${run.stderr}`).toMatch(/401|Unauthorized|Failed to connect/i);
  });
});

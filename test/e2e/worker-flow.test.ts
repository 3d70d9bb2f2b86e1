/**
 * Real clients end to end against the Worker in workerd (`wrangler dev` over the local libSQL endpoint):
 * the SDK `Client` over Streamable HTTP on `/mcp`, then the same flow with plain `fetch` on `/api/v1/mcp`:
 * create epic → story → requirements → relationship → search → read resources → prompt.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpcHttp, toolHttp } from "../helpers/rpc-http.js";
import { type StartedWorker, startWorker } from "../helpers/workers.js";

let worker: StartedWorker;

beforeAll(async () => {
  worker = await startWorker();
}, 240_000);

afterAll(async () => {
  await worker?.close();
}, 60_000);

type Structured = Record<string, unknown> & { reference_id: string };

/** The text of a resource's first content (these resources are text, never blobs). */
function textOf(contents: ({ text: string } | { blob: string })[]): string {
  const first = contents[0];
  if (!first || !("text" in first))
    throw new Error(`expected a text resource, got ${JSON.stringify(contents)}`);
  return first.text;
}

describe("SDK Client over Streamable HTTP against the Worker", () => {
  let client: Client;

  beforeAll(async () => {
    client = new Client({ name: "reqlix-e2e", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${worker.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${worker.token}` } },
    });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
  });

  async function tool(name: string, args: Record<string, unknown>): Promise<Structured> {
    const result = (await client.callTool({ name, arguments: args })) as {
      isError?: boolean;
      content: { text: string }[];
      structuredContent?: Structured;
    };
    expect(result.isError, `${name}: ${result.content[0]?.text}`).toBeFalsy();
    return result.structuredContent as Structured;
  }

  it("initializes with the server's name, instructions and capabilities", () => {
    expect(client.getServerVersion()?.name).toBe("reqlix");
    expect(client.getInstructions()?.length ?? 0).toBeGreaterThan(50);
    const caps = client.getServerCapabilities();
    expect(caps?.tools).toBeDefined();
    expect(caps?.resources).toBeDefined();
    expect(caps?.prompts).toBeDefined();
  });

  it("creates, links, searches, reads resources and gets a prompt", async () => {
    const epic = await tool("create_epic", {
      title: "Checkout in workerd",
      description: "Pay for the basket",
    });
    expect(epic.reference_id).toMatch(/^EP-\d{3}$/);
    const story = await tool("create_user_story", { epic_id: epic.reference_id, title: "Pay by card" });
    expect(story.reference_id).toMatch(/^US-\d{3}$/);
    const card = await tool("create_requirement", {
      user_story_id: story.reference_id,
      title: "Accept Visa cards",
      description: "The checkout accepts Visa via the payment gateway.",
      type: "Functional",
      priority: 1,
    });
    const audit = await tool("create_requirement", {
      user_story_id: story.reference_id,
      title: "Log every payment",
      type: "non-functional",
      priority: 3,
    });
    const link = await tool("create_relationship", {
      source_requirement_id: audit.reference_id,
      target_requirement_id: card.reference_id,
      relationship_type: "depends_on",
    });
    expect(JSON.stringify(link)).toContain(card.reference_id);

    const found = await tool("search_requirements", { query: "Visa" });
    const items = found.items as { reference_id: string }[];
    expect(items[0]?.reference_id).toBe(card.reference_id);
    const byId = await tool("search_global", { query: audit.reference_id });
    expect((byId.items as { reference_id: string; exact_match: boolean }[])[0]).toMatchObject({
      reference_id: audit.reference_id,
      exact_match: true,
    });

    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(["requirement://{requirement_id}"]),
    );
    const req = await client.readResource({ uri: `requirement://${card.reference_id}` });
    expect(textOf(req.contents)).toContain("Accept Visa cards");
    const rel = await client.readResource({ uri: `requirement://${audit.reference_id}/relationships` });
    expect(rel.contents[0]?.mimeType).toBe("application/json");
    expect(textOf(rel.contents)).toContain(card.reference_id);
    const reqs = await client.readResource({ uri: `user-story://${story.reference_id}/requirements` });
    expect(textOf(reqs.contents)).toContain(`Found 2 requirements for user story ${story.reference_id}`);

    const prompt = await client.getPrompt({
      name: "analyze_requirement_quality",
      arguments: { requirement_id: card.reference_id },
    });
    expect(prompt.messages.length).toBeGreaterThan(0);
    expect(JSON.stringify(prompt.messages)).toContain("Accept Visa cards");

    const missing = await client
      .readResource({ uri: "requirement://REQ-999" })
      .catch((e: { code?: number }) => e);
    expect((missing as { code?: number }).code).toBe(-32002);
  }, 180_000);
});

describe("the same flow with plain fetch on /api/v1/mcp against the Worker", () => {
  it("creates, links, searches, reads resources and gets a prompt, no handshake", async () => {
    const url = worker.url;
    const token = worker.token;
    const epic = await toolHttp(url, token, "create_epic", { title: "Invoices over JSON-RPC" });
    const story = await toolHttp(url, token, "create_user_story", {
      epic_id: epic.reference_id,
      title: "Download a PDF invoice",
    });
    const pdf = await toolHttp(url, token, "create_requirement", {
      user_story_id: story.reference_id,
      title: "Render invoices as PDF/A",
      type: "Functional",
      priority: 2,
    });
    const keep = await toolHttp(url, token, "create_requirement", {
      user_story_id: story.reference_id,
      title: "Keep invoices ten years",
      type: "Functional",
      priority: 1,
    });
    await toolHttp(url, token, "create_relationship", {
      source_requirement_id: keep.reference_id,
      target_requirement_id: pdf.reference_id,
      relationship_type: "relates_to",
    });
    const found = await toolHttp(url, token, "search_global", { query: "invoices PDF" });
    expect((found.items as { reference_id: string }[]).map((i) => i.reference_id)).toContain(
      pdf.reference_id,
    );

    const resource = await rpcHttp(url, token, "resources/read", {
      uri: `epic://${epic.reference_id}/hierarchy`,
    });
    expect(resource.status).toBe(200);
    const text = resource.body.result.contents[0].text as string;
    expect(text).toContain("Render invoices as PDF/A");
    expect(text).toContain("Keep invoices ten years");

    const prompt = await rpcHttp(url, token, "prompts/get", {
      name: "decompose_epic",
      arguments: { epic_id: epic.reference_id },
    });
    expect(prompt.status).toBe(200);
    expect(JSON.stringify(prompt.body.result.messages)).toContain("Invoices over JSON-RPC");

    const notFound = await rpcHttp(url, token, "resources/read", { uri: "epic://EP-999" });
    expect(notFound.body.error.code).toBe(-32002);
    const bad = await rpcHttp(url, token, "tools/call", {
      name: "get_user_story_requirements",
      arguments: { user_story: "US-ABC" },
    });
    expect(bad.body.error.code).toBe(-32602);
    expect(bad.text).toContain("Invalid user story reference ID format");
  }, 180_000);
});

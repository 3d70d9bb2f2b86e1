/**
 * Concurrent creates through both faces over real sockets (issue item 10; DESIGN's libSQL data-loss bug):
 * many writers at once, every acknowledged create is stored, and no reference id is handed out twice.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type HostedServer, MCP_ACCEPT, parseMcpBody, startHosted } from "../../helpers/hosted.js";

let server: HostedServer;
beforeAll(async () => {
  server = await startHosted();
});
afterAll(async () => server?.close());

let id = 0;
async function call(face: "mcp" | "jsonrpc", token: string, name: string, args: Record<string, unknown>) {
  const res = await fetch(`${server.url}${face === "mcp" ? "/mcp" : "/api/v1/mcp"}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: MCP_ACCEPT },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++id,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
  const [message] = parseMcpBody(res.headers.get("content-type"), await res.text()) as {
    result?: { isError?: boolean; structuredContent?: { reference_id: string; title: string } };
  }[];
  return res.status === 200 && message?.result && !message.result.isError
    ? message.result.structuredContent
    : undefined;
}

it("64 concurrent creates from 8 writers on both faces: every acknowledged write stored, ids unique", async () => {
  const writers = await Promise.all(
    Array.from({ length: 8 }, (_, w) => server.createToken(`writer${w}`, "editor")),
  );
  const epic = await call("jsonrpc", server.ownerToken, "create_epic", { title: "Concurrency" });
  const story = await call("jsonrpc", server.ownerToken, "create_user_story", {
    epic_id: epic?.reference_id,
    title: "Many writers",
  });
  expect(story?.reference_id).toMatch(/^US-\d{3}$/);

  const jobs = writers.flatMap((token, w) =>
    Array.from({ length: 8 }, (_, i) => {
      const face = (w + i) % 2 === 0 ? "mcp" : "jsonrpc";
      return i % 2 === 0
        ? call(face, token, "create_epic", { title: `epic w${w} i${i}` })
        : call(face, token, "create_requirement", {
            user_story_id: story?.reference_id,
            title: `req w${w} i${i}`,
            type: "Functional",
            priority: (i % 4) + 1,
          });
    }),
  );
  const acknowledged = (await Promise.all(jobs)).filter((r) => r !== undefined);
  expect(acknowledged).toHaveLength(64);
  const ids = acknowledged.map((r) => r.reference_id);
  expect(new Set(ids).size).toBe(64);

  // Read back from the database itself, not through the code under test.
  const epics = await server.database.client.execute({
    sql: "SELECT reference_id, title FROM epics WHERE workspace_id = ?",
    args: [server.workspaceId],
  });
  const requirements = await server.database.client.execute({
    sql: "SELECT reference_id, title FROM requirements WHERE workspace_id = ?",
    args: [server.workspaceId],
  });
  const stored = new Map(
    [...epics.rows, ...requirements.rows].map((r) => [String(r.reference_id), String(r.title)]),
  );
  for (const r of acknowledged) expect(stored.get(r.reference_id), r.reference_id).toBe(r.title);
  expect(requirements.rows).toHaveLength(32);
  expect(epics.rows).toHaveLength(33);
});

/**
 * The role matrix through both faces (issue item 6), over every tool of the hosted registry: viewer reads
 * only (a write is 403 / -32003 on /api/v1/mcp, an isError "Forbidden: …" result on /mcp, and changes
 * nothing); editor reads and writes; admin also manages types.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compiledFor } from "../../../src/http/faces-common.js";
import { createTestApp, type TestApp } from "../../helpers/app.js";
import { type Snapshot, workspaceSnapshot } from "../../helpers/db-snapshot.js";
import { pushTraces, snapshotBody, traceRowCounts } from "../../helpers/traces.js";
import { exerciseOrder, outcomeOf, type Seed, sampleArgs, seed } from "./exercise.js";
import { callTool } from "./http.js";

/** Tools that need the admin role (writes beyond the editor's, and the audit trail). A new admin-only tool must be added here. */
const ADMIN_ONLY = new Set(["create_requirement_type", "set_approvals_required", "list_audit_events"]);
/** Write tools a viewer may call (change control: viewers may comment; every member manages their own tokens). */
const VIEWER_WRITES = new Set(["add_comment", "create_my_token", "revoke_my_token"]);

let t: TestApp;
let tokens: Record<"viewer" | "editor" | "admin", string>;
const compiled = () => compiledFor({ database: t.database, logger: { log() {} } });

beforeAll(async () => {
  t = await createTestApp();
  tokens = {
    viewer: await t.createToken("vera", "viewer", "roles"),
    editor: await t.createToken("eddie", "editor", "roles"),
    admin: await t.createToken("ada", "admin", "roles"),
  };
});
afterAll(async () => t?.close());

/** Everything of the workspace except what any request adds by design (its audit row, token use). */
function withoutBookkeeping(s: Snapshot): Snapshot {
  const { audit_events: _a, tokens: _t, ...rest } = s;
  return rest;
}

async function workspaceId(): Promise<number> {
  const rs = await t.database.client.execute({
    sql: "SELECT id FROM workspaces WHERE slug = ?",
    args: ["roles"],
  });
  return Number(rs.rows[0]?.id);
}

describe.each(["jsonrpc", "mcp"] as const)("roles on %s", (face) => {
  it.each(["viewer", "editor", "admin"] as const)(
    "%s: every tool answers as the role allows",
    async (role) => {
      // Deletes last, leaf first: each deletes what the seed made, after every other tool used it.
      const tools = exerciseOrder(compiled().toolList);
      expect(tools.length).toBeGreaterThan(10);
      const wsId = await workspaceId();
      const problems: string[] = [];
      // Entities of this role and face: no call of another test can have used them up (a delete).
      const s: Seed = await seed(t, tokens.admin, `roles-${face}-${role}`);
      // revoke_my_token acts on the caller's own tokens only: a spare one of this role's user.
      const spare = await callTool(t, face, "create_my_token", { name: "spare" }, tokens[role]);
      s.token = spare.body.result.structuredContent.id as number;
      for (const tool of tools) {
        const args = sampleArgs(tool, s, `${face} ${role} ${tool.name}`);
        const isWrite = tool.annotations.readOnlyHint !== true;
        const allowed =
          (!isWrite && !ADMIN_ONLY.has(tool.name)) ||
          role === "admin" ||
          (role === "editor" && !ADMIN_ONLY.has(tool.name)) ||
          VIEWER_WRITES.has(tool.name);
        const before = allowed
          ? undefined
          : withoutBookkeeping(await workspaceSnapshot(t.database.client, wsId));
        const answer = await callTool(t, face, tool.name, args, tokens[role]);
        const outcome = outcomeOf(face, answer);
        const expected = allowed ? "ok" : "forbidden";
        if (outcome !== expected)
          problems.push(`${tool.name}: expected ${expected}, got ${outcome}: ${answer.text.slice(0, 300)}`);
        if (before) {
          const after = withoutBookkeeping(await workspaceSnapshot(t.database.client, wsId));
          if (JSON.stringify(after) !== JSON.stringify(before))
            problems.push(`${tool.name}: a refused call changed data`);
          if (face === "mcp") {
            const text = String(answer.body?.result?.content?.[0]?.text);
            expect(text).toContain(`needs the ${ADMIN_ONLY.has(tool.name) ? "admin" : "editor"} role`);
          }
        }
      }
      expect(problems).toEqual([]);
    },
  );
});

describe("roles on the trace push route (POST /api/v1/traces, not a registry tool)", () => {
  it("viewer → 403 and nothing stored; editor and admin → 201", async () => {
    const before = await traceRowCounts(t);
    const refused = await pushTraces(t, snapshotBody({ repository: "roles/viewer" }), tokens.viewer);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain("needs the editor role");
    expect(await traceRowCounts(t)).toEqual(before);
    for (const role of ["editor", "admin"] as const) {
      const pushed = await pushTraces(t, snapshotBody({ repository: `roles/${role}` }), tokens[role]);
      expect(pushed.status, role).toBe(201);
    }
  });
});

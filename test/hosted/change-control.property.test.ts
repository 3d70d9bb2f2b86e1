/**
 * Change control, property test: random sequences of every write tool under change control, on both faces
 * (/api/v1/mcp and /mcp), some in concurrent batches, over a real app and database. Afterwards:
 * - every acknowledged write has exactly one revision per entity it wrote (a delete: one per item it
 *   removed, cascades included; a refused write none), numbered 1..n per entity;
 * - replaying the revisions in order reproduces every entity's current state exactly, deletes included: a
 *   deleted entity's replay ends deleted;
 * - a baseline reads back exactly as it did when it was made.
 */
import fc from "fast-check";
import { afterAll, beforeAll, expect, test } from "vitest";
import { getAcceptanceCriterion } from "../../src/db/acceptance-criteria.repo.js";
import { getEpic } from "../../src/db/epics.repo.js";
import { relationshipsOfRequirement } from "../../src/db/relationships.repo.js";
import { getRequirement } from "../../src/db/requirements.repo.js";
import { getUserStory } from "../../src/db/user-stories.repo.js";
import { findWorkspaceBySlug } from "../../src/db/workspaces.repo.js";
import { createTestApp, type TestApp } from "../helpers/app.js";
import { callTool } from "../http/faces/http.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

type Face = "jsonrpc" | "mcp";
interface Op {
  kind: number;
  a: number;
  b: number;
  text: string;
  face: Face;
}

const RELATIONSHIP_TYPES = ["depends_on", "blocks", "relates_to"];

const opArb = fc.record({
  kind: fc.integer({ min: 0, max: 21 }),
  a: fc.nat(50),
  b: fc.nat(50),
  text: fc.stringMatching(/^[a-z]{1,6}( [a-z]{1,6}){0,4}$/),
  face: fc.constantFrom<Face>("jsonrpc", "mcp"),
});

interface World {
  epics: string[];
  stories: string[];
  reqs: string[];
  acs: string[];
  links: Set<string>;
  /** `kind reference` of every entity and link a delete removed. */
  gone: Set<string>;
}

const pick = (list: string[], i: number): string | undefined => list[i % Math.max(1, list.length)];

type Call = { name: string; args: Record<string, unknown> };

/** The call, when every entity it needs exists. */
const need = (ids: (string | undefined)[], name: string, args: Record<string, unknown>): Call | undefined =>
  ids.every((id) => id !== undefined) ? { name, args } : undefined;

/** The tool call an op stands for in the current world, or undefined when it has nothing to act on. */
function callFor(op: Op, w: World, n: number): Call | undefined {
  const note = op.a % 2 === 0 ? { change_note: `why ${op.text}`, source: `T-${op.b}` } : {};
  const epic = pick(w.epics, op.a);
  const story = pick(w.stories, op.a);
  const req = pick(w.reqs, op.a);
  const ac = pick(w.acs, op.a);
  const priority = (op.b % 4) + 1;
  // 18-21 are creates again, so deletes (14-17) do not empty the world.
  switch (op.kind >= 18 ? [0, 2, 4, 8][op.kind - 18] : op.kind) {
    case 0:
      return need([], "create_epic", { title: `E ${op.text} ${n}`, ...note });
    case 1:
      return need([epic], "update_epic", { epic_id: epic, description: op.text, priority, ...note });
    case 2:
      return need([epic], "create_user_story", { epic_id: epic, title: `S ${op.text} ${n}`, ...note });
    case 3: {
      const change = op.b % 2 ? { epic_id: pick(w.epics, op.b) } : { title: `S ${op.text}` };
      return need([story], "update_user_story", { user_story_id: story, ...change, ...note });
    }
    case 4:
    case 5:
      return need([story], "create_requirement", {
        user_story_id: story,
        title: `R ${op.text} ${n}`,
        type: "Functional",
        priority,
        ...note,
      });
    case 6:
    case 7: {
      const change =
        op.b % 3 === 0 ? { user_story_id: pick(w.stories, op.b) } : { description: `${op.text} ${op.b}` };
      const status = op.b % 5 === 0 ? { status: "Active" } : {};
      return need([req], "update_requirement", { requirement_id: req, ...change, ...status, ...note });
    }
    case 8:
      return need([story], "create_acceptance_criteria", {
        user_story_id: story,
        description: `Given ${op.text}`,
        ...note,
      });
    case 9:
      return need([ac], "update_acceptance_criteria", {
        acceptance_criteria_id: ac,
        description: `Then ${op.text}`,
        ...note,
      });
    case 10:
    case 11: {
      const target = pick(w.reqs, op.b);
      return need([req, target], "create_relationship", {
        source_requirement_id: req,
        target_requirement_id: target,
        relationship_type: RELATIONSHIP_TYPES[op.b % 3],
        ...note,
      });
    }
    case 14:
      return need([ac], "delete_acceptance_criteria", { acceptance_criteria_id: ac, ...note });
    case 15:
      return need([req], "delete_requirement", { requirement_id: req, cascade: op.b % 2 === 0, ...note });
    case 16:
      // Without cascade a story with children is refused: that must leave no revision either.
      return need([story], "delete_user_story", { user_story_id: story, cascade: op.b % 2 === 0, ...note });
    case 17:
      return need([epic], "delete_epic", { epic_id: epic, cascade: op.b % 2 === 0, ...note });
    default: {
      const link = [...w.links][op.a % Math.max(1, w.links.size)];
      if (!link) return undefined;
      const [source, type, target] = link.split(" ");
      return need([], op.kind === 12 ? "delete_relationship" : "confirm_relationship", {
        source_requirement_id: source,
        target_requirement_id: target,
        relationship_type: type,
        ...note,
      });
    }
  }
}

interface Deleted {
  epics: string[];
  user_stories: string[];
  requirements: string[];
  acceptance_criteria: string[];
  relationships: {
    source_requirement_id: string;
    relationship_type: string;
    target_requirement_id: string;
  }[];
}

const isDelete = (name: string) => name.startsWith("delete_") && name !== "delete_relationship";

/** How many revisions an acknowledged write appends: one, or one per item a delete removed. */
function revisionsOf(name: string, out: Record<string, unknown>): number {
  if (!isDelete(name)) return 1;
  const d = out.deleted as Deleted;
  return (
    d.epics.length +
    d.user_stories.length +
    d.requirements.length +
    d.acceptance_criteria.length +
    d.relationships.length
  );
}

/** Takes what a delete removed out of the world (run after the batch's other writes were learned). */
function forget(w: World, out: Record<string, unknown>): void {
  const d = out.deleted as Deleted;
  const drop = (list: string[], ids: string[], kind: string) => {
    for (const id of ids) {
      w.gone.add(`${kind} ${id}`);
      const i = list.indexOf(id);
      if (i >= 0) list.splice(i, 1);
    }
  };
  drop(w.epics, d.epics, "epic");
  drop(w.stories, d.user_stories, "user_story");
  drop(w.reqs, d.requirements, "requirement");
  drop(w.acs, d.acceptance_criteria, "acceptance_criterion");
  for (const l of d.relationships) {
    const key = `${l.source_requirement_id} ${l.relationship_type} ${l.target_requirement_id}`;
    w.links.delete(key);
    w.gone.add(`relationship ${key}`);
  }
}

function learn(w: World, name: string, args: Record<string, unknown>, out: Record<string, unknown>): void {
  const ref = out.reference_id as string;
  if (name === "create_epic") w.epics.push(ref);
  if (name === "create_user_story") w.stories.push(ref);
  if (name === "create_requirement") w.reqs.push(ref);
  if (name === "create_acceptance_criteria") w.acs.push(ref);
  const key = `${args.source_requirement_id} ${out.relationship_type} ${args.target_requirement_id}`;
  if (name === "create_relationship") {
    w.links.add(key);
    w.gone.delete(`relationship ${key}`);
  }
  if (name === "delete_relationship") {
    w.links.delete(key);
    w.gone.add(`relationship ${key}`);
  }
}

type RevisionRow = {
  entity_kind: string;
  entity_id: number;
  revision: number;
  op: string;
  snapshot: string;
  reference_id: string;
};

async function revisionRows(workspaceId: number): Promise<RevisionRow[]> {
  const rs = await t.database.client.execute({
    sql: "SELECT entity_kind, entity_id, revision, op, snapshot, reference_id FROM revisions WHERE workspace_id = ? ORDER BY id",
    args: [workspaceId],
  });
  return rs.rows.map((r) => ({
    entity_kind: String(r.entity_kind),
    entity_id: Number(r.entity_id),
    revision: Number(r.revision),
    op: String(r.op),
    snapshot: String(r.snapshot),
    reference_id: String(r.reference_id),
  }));
}

/** Every live entity of the workspace as the tools show it, keyed like the replay. */
async function currentState(workspaceId: number, w: World): Promise<Map<string, string>> {
  return t.database.read(async (db) => {
    const out = new Map<string, string>();
    for (const id of w.epics) out.set(`epic ${id}`, JSON.stringify(await getEpic(db, workspaceId, id)));
    for (const id of w.stories)
      out.set(`user_story ${id}`, JSON.stringify(await getUserStory(db, workspaceId, id)));
    for (const id of w.reqs) {
      out.set(`requirement ${id}`, JSON.stringify(await getRequirement(db, workspaceId, id)));
      for (const { suspect: _s, ...link } of (await relationshipsOfRequirement(db, workspaceId, id))
        .outgoing) {
        const key = `${link.source_requirement_id} ${link.relationship_type} ${link.target_requirement_id}`;
        out.set(`relationship ${key}`, JSON.stringify(link));
      }
    }
    for (const id of w.acs) {
      out.set(
        `acceptance_criterion ${id}`,
        JSON.stringify(await getAcceptanceCriterion(db, workspaceId, id)),
      );
    }
    return out;
  });
}

let run = 0;
let totalAcknowledged = 0;
let totalDeleted = 0;
let totalCascades = 0;

test("revisions replay to the current state, deletes included; one revision per item each acknowledged write touched; baselines never change", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(opArb, { minLength: 30, maxLength: 60 }),
      fc.integer({ min: 1, max: 4 }),
      async (ops, batch) => {
        run++;
        const slug = `prop-${run}`;
        const token = await t.createToken(`prop${run}`, "editor", slug);
        const ws = await t.database.read((db) => findWorkspaceBySlug(db, slug));
        if (!ws) throw new Error("no workspace");
        const w: World = { epics: [], stories: [], reqs: [], acs: [], links: new Set(), gone: new Set() };
        let acknowledged = 0;
        let expected = 0;
        let n = 0;
        const baselines: { name: string; content: unknown }[] = [];
        for (let i = 0; i < ops.length; i += batch) {
          const calls = ops
            .slice(i, i + batch)
            .map((op) => ({ op, call: callFor(op, w, n++) }))
            .filter((c): c is { op: Op; call: Call } => c.call !== undefined);
          // A batch runs concurrently, alternating faces as the ops say.
          const answers = await Promise.all(
            calls.map((c) => callTool(t, c.op.face, c.call.name, c.call.args, token)),
          );
          const acked = answers.flatMap((answer, j) => {
            const c = calls[j];
            const result = answer.body?.result;
            if (!c || !result || result.isError) return []; // refused: must leave no revision
            return [{ name: c.call.name, args: c.call.args, out: result.structuredContent }];
          });
          // The batch's deletes last: a child created in the same batch before its parent's cascade went
          // with it (and is in the delete's answer); one created after was refused.
          for (const a of acked) {
            acknowledged++;
            expected += revisionsOf(a.name, a.out);
            if (!isDelete(a.name)) learn(w, a.name, a.args, a.out);
          }
          for (const a of acked) {
            if (!isDelete(a.name)) continue;
            forget(w, a.out);
            const removed = revisionsOf(a.name, a.out);
            totalDeleted += removed;
            if (removed > 1) totalCascades++;
          }
          if (i % 10 === 0 && w.epics.length > 0) {
            const name = `b${i}`;
            const made = await callTool(t, "jsonrpc", "create_baseline", { name }, token);
            expect(made.body?.result?.structuredContent?.name).toBe(name);
            const read = await callTool(t, "mcp", "get_baseline", { name, limit: 100 }, token);
            baselines.push({ name, content: read.body.result.structuredContent });
          }
        }

        totalAcknowledged += acknowledged;
        const rows = await revisionRows(ws.id);
        expect(rows.length).toBe(expected);
        // Replay: each entity's revisions are 1..n in order; the last state (or its deletion) is what is stored.
        const replayed = new Map<string, string | undefined>();
        const seen = new Map<string, number>();
        for (const r of rows) {
          const key = `${r.entity_kind}:${r.entity_id}`;
          expect(r.revision, `${key} revision order`).toBe((seen.get(key) ?? 0) + 1);
          seen.set(key, r.revision);
          const name = `${r.entity_kind} ${r.reference_id}`;
          replayed.set(name, r.op === "delete" ? undefined : r.snapshot);
        }
        const live = new Map([...replayed].filter((e): e is [string, string] => e[1] !== undefined));
        for (const name of w.gone) {
          expect(replayed.has(name), `${name} has revisions`).toBe(true);
          expect(replayed.get(name), `${name} replays to deleted`).toBeUndefined();
        }
        expect(live).toEqual(await currentState(ws.id, w));

        for (const b of baselines) {
          const again = await callTool(t, "jsonrpc", "get_baseline", { name: b.name, limit: 100 }, token);
          expect(again.body.result.structuredContent).toEqual(b.content);
        }
      },
    ),
    { numRuns: 25, seed: 20_261_125 },
  );
  // The sequences did write (a property over refused calls only would prove nothing).
  console.log(
    `change-control property: ${run} runs, ${totalAcknowledged} acknowledged writes, ${totalDeleted} items deleted (${totalCascades} cascades)`,
  );
  expect(totalAcknowledged).toBeGreaterThan(300);
  // Deletes, cascades included, did happen.
  expect(totalDeleted).toBeGreaterThan(20);
  expect(totalCascades).toBeGreaterThan(5);
}, 120_000);

/**
 * A generated `.ixchel/` repository for the ixchel benchmarks: entities of every kind with frontmatter,
 * tags, links (some of them `{id, type}` objects) and bodies of ordinary length. Deterministic for a seed.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { KIND_FOLDER, KIND_PREFIX, KINDS } from "../src/local/ixchel/kinds.js";
import { rng } from "./lib.js";

const WORDS = (
  "cache database index search graph token session agent decision issue report source citation idea storage " +
  "latency throughput migration schema worker deploy rollback release budget review security audit policy " +
  "vector embedding lexical ranking query parser frontmatter markdown folder repository branch commit merge " +
  "conflict retry timeout queue stream socket protocol server client request response header payload limit " +
  "quota billing invoice customer tenant workspace member role permission token rotation secret vault key " +
  "metric alert dashboard trace span log error warning incident outage postmortem runbook oncall pager"
).split(" ");

export function words(random: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(random() * WORDS.length)] as string);
  return out.join(" ");
}

export function generateRepo(root: string, count: number, seed = 1): string[] {
  const random = rng(seed);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const kind = KINDS[i % KINDS.length] as (typeof KINDS)[number];
    ids.push(`${KIND_PREFIX[kind]}-${(0x100000 + i).toString(16).padStart(8, "0")}`);
  }
  for (const kind of KINDS) mkdirSync(join(root, ".ixchel", KIND_FOLDER[kind]), { recursive: true });
  ids.forEach((id, i) => {
    const kind = KINDS[i % KINDS.length] as (typeof KINDS)[number];
    const pick = () => ids[Math.floor(random() * ids.length)] as string;
    const links = [`relates_to: [${pick()}, ${pick()}]`];
    if (random() < 0.3) links.push(`depends_on:\n  - id: ${pick()}\n    type: issue`);
    const body = Array.from({ length: 4 }, () => words(random, 30)).join("\n\n");
    const text = `---
id: ${id}
type: ${kind}
title: ${words(random, 5)}
status: open
created_at: 2026-01-01T00:00:00Z
tags: [${words(random, 2).replace(" ", ", ")}]
${links.join("\n")}
---

# ${words(random, 3)}

${body}
`;
    writeFileSync(join(root, ".ixchel", KIND_FOLDER[kind], `${id}.md`), text);
  });
  return ids;
}

/**
 * The 100 MB ReqIF memory measure (issue 15), shared by test/core/interchange/reqif-memory.test.ts and
 * bench/reqif-server-memory.ts: a synthetic workspace written as a ReqIF file as it is generated, and the
 * resident memory of another process (/proc/<pid>/status) sampled from outside, so the measuring adds
 * nothing to what is measured.
 */
import { createWriteStream, readFileSync } from "node:fs";
import type { EpicDoc, RequirementDoc, UserStoryDoc } from "../../src/core/interchange/document.js";
import type { ExportSource } from "../../src/core/interchange/formats.js";
import { exportReqif } from "../../src/core/interchange/reqif/reqif-write.js";

export const STORIES_PER_EPIC = 20;
export const REQUIREMENTS_PER_STORY = 50;
/** ≈ 2.2 MB of ReqIF per epic with this text: 46 epics make a file of just over 100 MB. */
export const MB_PER_EPIC = 2.2;
const TEXT =
  "The system shall keep every value it was sent, exactly, and say what was wrong otherwise. ".repeat(5);
const num = (n: number) => String(n).padStart(3, "0");

/** A workspace of `epics` epics (20 stories of 50 requirements each, a link per 10), generated as read. */
export function syntheticSource(epics: number): ExportSource {
  const at = "2026-11-25T10:00:00.000Z";
  async function* none<T>(): AsyncIterable<T> {}
  const total = epics * STORIES_PER_EPIC * REQUIREMENTS_PER_STORY;
  return {
    header: {
      exported_at: at,
      workspace: { slug: "big", name: "Big" },
      scope: { kind: "workspace" },
      requirement_types: [{ name: "Functional", description: "" }],
      relationship_types: [{ name: "depends_on", description: "" }],
    },
    async *epics() {
      for (let e = 1; e <= epics; e++)
        yield {
          reference_id: `EP-${num(e)}`,
          title: `Epic ${e}`,
          description: TEXT,
          status: "Draft",
          priority: 2,
        } as EpicDoc;
    },
    async *userStories() {
      for (let n = 1; n <= epics * STORIES_PER_EPIC; n++)
        yield {
          reference_id: `US-${num(n)}`,
          epic: `EP-${num(Math.ceil(n / STORIES_PER_EPIC))}`,
          title: `Story ${n}`,
          description: TEXT,
          status: "Draft",
          priority: 3,
        } as UserStoryDoc;
    },
    async *requirements() {
      for (let n = 1; n <= total; n++)
        yield {
          reference_id: `REQ-${num(n)}`,
          user_story: `US-${num(Math.ceil(n / REQUIREMENTS_PER_STORY))}`,
          title: `Requirement ${n}`,
          description: `${TEXT}\n${n}`,
          type: "Functional",
          status: "Draft",
          priority: 1 + (n % 4),
        } as RequirementDoc;
    },
    async *relationships() {
      for (let n = 2; n <= total; n += 10)
        yield { source: `REQ-${num(n)}`, target: `REQ-${num(n - 1)}`, type: "depends_on" };
    },
    criteriaOf: () => none(),
    userStoriesOf: () => none(),
    requirementsOf: () => none(),
    acceptanceCriteria: () => none(),
    comments: () => none(),
  };
}

/** Writes the synthetic workspace of `epics` epics to `path` as ReqIF, streamed (nothing held). */
export async function writeReqif(path: string, epics: number): Promise<void> {
  const out = createWriteStream(path);
  await exportReqif(syntheticSource(epics), {
    write: (chunk) => new Promise<void>((ok, fail) => out.write(chunk, (err) => (err ? fail(err) : ok()))),
  });
  await new Promise<void>((ok) => out.end(ok));
}

export interface Resident {
  /** VmRSS: the whole resident set. */
  rss: number;
  /** RssAnon: heap and native allocations, without mapped file pages. */
  anon: number;
}

/** A process's resident memory now, in bytes. */
export function residentOf(pid: number): Resident {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), anon: kb("RssAnon") };
}

/**
 * Samples `pid`'s resident memory every `everyMs` until `stop()`, which samples once more and returns the
 * peaks. A process that has exited keeps its last peaks.
 */
export function samplePeak(pid: number, everyMs = 25): { stop(): Resident } {
  const peak: Resident = { rss: 0, anon: 0 };
  const sample = () => {
    try {
      const now = residentOf(pid);
      peak.rss = Math.max(peak.rss, now.rss);
      peak.anon = Math.max(peak.anon, now.anon);
    } catch {
      // gone: its peaks are what was seen
    }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { ...peak };
    },
  };
}

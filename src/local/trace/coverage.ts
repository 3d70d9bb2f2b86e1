/**
 * Coverage per requirement from a set of citations: `covered` (cited by implementation and by tests),
 * `impl_only`, `test_only`, `uncovered` (doc citations do not count), plus `orphan` citations (ids that do
 * not exist) and `suspect` citations (pinned to a revision older than the requirement's current one, the hosted rule too).
 */
import type { CitationFacts } from "./cache-format.js";
import type { Citation, IdForm } from "./citations.js";

export type CoverageStatus = "covered" | "impl_only" | "test_only" | "uncovered";
export const COVERAGE_STATUSES: CoverageStatus[] = ["covered", "impl_only", "test_only", "uncovered"];

/** What is known about an id: exists (true/false), or null when nobody could say (no hosted server given). */
export interface RequirementInfo {
  id: string;
  form: IdForm;
  exists: boolean | null;
  title: string | null;
  /** Draft / Active / Obsolete for hosted requirements; local reqlix requirements are always Active. */
  status: string | null;
  revision: number | null;
  /** The reqlix category, or the hosted prefix (`REQ`). */
  category: string | null;
}

export interface CoverageRow extends RequirementInfo {
  coverage: CoverageStatus;
  impl: number;
  test: number;
  doc: number;
  suspect: number;
}

export interface SuspectCitation extends Citation {
  current_revision: number;
}

export interface Coverage {
  rows: CoverageRow[];
  orphans: Citation[];
  suspects: SuspectCitation[];
  summary: Record<CoverageStatus | "orphan" | "suspect" | "unknown", number>;
}

export function statusOf(impl: number, test: number): CoverageStatus {
  if (impl > 0 && test > 0) return "covered";
  if (impl > 0) return "impl_only";
  if (test > 0) return "test_only";
  return "uncovered";
}

function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Citations as coverage reads them, in order: the facts of each, and its file's citations (`list()`, made
 * only for the few it lists: orphans and suspects) with its position there.
 */
export type CitationVisitor = (facts: CitationFacts, list: () => Citation[], index: number) => void;

/**
 * What coverage keeps per id of one stored id table, so that the stored citations are counted in one loop
 * without a call each (a new process runs that loop before V8 optimises anything): `state` 0 not yet
 * resolved (call `resolve`), 1 counted in `counts` (impl, test, doc per id), 2 an orphan's (visit it);
 * a citation pinned below `current` (the id's revision, 0 for none) is visited too (a suspect).
 */
export interface IdTally {
  readonly ids: readonly string[];
  readonly state: Uint8Array;
  readonly current: Int32Array;
  readonly counts: Int32Array;
}

/** Given to a source of citations that can count stored ones in place (see IdTally). */
export interface CoverageTally {
  /** The tally of an id table (the same one for the same table). */
  table(ids: readonly string[]): IdTally;
  /** Resolves id `i` of the table, cited as `form`. */
  resolve(tally: IdTally, i: number, form: IdForm): void;
}

/**
 * `universe`: requirements that exist even when nothing cites them (the local ones); `info(id)` answers for
 * cited ids outside it.
 */
export function computeCoverage(
  citations: Iterable<Citation>,
  universe: Iterable<RequirementInfo>,
  info: (id: string, form: IdForm) => RequirementInfo,
): Coverage {
  const all = [...citations];
  const list = () => all;
  const each = (visit: CitationVisitor) => {
    for (let i = 0; i < all.length; i++) visit(all[i] as Citation, list, i);
  };
  return coverageOf(each, universe, info);
}

/**
 * The coverage of the citations `each` visits (see computeCoverage); a source may count stored citations
 * through the tally instead of visiting each (see IdTally), with the same result.
 */
export function coverageOf(
  each: (visit: CitationVisitor, tally?: CoverageTally) => void,
  universe: Iterable<RequirementInfo>,
  info: (id: string, form: IdForm) => RequirementInfo,
): Coverage {
  const rows = new Map<string, CoverageRow>();
  const row = (i: RequirementInfo): CoverageRow => {
    let r = rows.get(i.id);
    if (!r) {
      r = { ...i, coverage: "uncovered", impl: 0, test: 0, doc: 0, suspect: 0 };
      rows.set(i.id, r);
    }
    return r;
  };
  for (const u of universe) row(u);
  const orphans: Citation[] = [];
  const suspects: SuspectCitation[] = [];
  const tallies = new Map<readonly string[], IdTally>();
  const tally: CoverageTally = {
    table(ids) {
      let t = tallies.get(ids);
      if (!t) {
        const n = ids.length;
        t = { ids, state: new Uint8Array(n), current: new Int32Array(n), counts: new Int32Array(n * 3) };
        tallies.set(ids, t);
      }
      return t;
    },
    resolve(t, i, form) {
      const id = t.ids[i] as string;
      const known = rows.get(id) ?? info(id, form);
      if (known.exists === false) t.state[i] = 2;
      else {
        t.state[i] = 1;
        t.current[i] = row(known).revision ?? 0;
      }
    },
  };
  each((c, list, index) => {
    const known = rows.get(c.id) ?? info(c.id, c.form);
    if (known.exists === false) {
      orphans.push(list()[index] as Citation);
      return;
    }
    const r = row(known);
    r[c.kind]++;
    if (c.revision !== null && r.revision !== null && c.revision < r.revision) {
      r.suspect++;
      suspects.push({ ...(list()[index] as Citation), current_revision: r.revision });
    }
  }, tally);
  for (const t of tallies.values()) {
    const { ids, counts } = t;
    for (let i = 0; i < ids.length; i++) {
      const impl = counts[i * 3] as number;
      const test = counts[i * 3 + 1] as number;
      const doc = counts[i * 3 + 2] as number;
      if (impl + test + doc === 0) continue;
      const r = rows.get(ids[i] as string) as CoverageRow;
      r.impl += impl;
      r.test += test;
      r.doc += doc;
    }
  }
  const summary: Coverage["summary"] = {
    covered: 0,
    impl_only: 0,
    test_only: 0,
    uncovered: 0,
    orphan: orphans.length,
    suspect: suspects.length,
    unknown: 0,
  };
  const list = [...rows.values()].sort(byId);
  for (const r of list) {
    r.coverage = statusOf(r.impl, r.test);
    summary[r.coverage]++;
    if (r.exists === null) summary.unknown++;
  }
  return { rows: list, orphans, suspects, summary };
}

/**
 * Coverage of requirements by code and tests, from the citations of the latest snapshot of every
 * repository. Repositories combine: a requirement cited by an implementation in one repository and by a
 * test in another is covered (a service and its separate end-to-end suite are one system). `doc`
 * citations trace a requirement but cover nothing.
 */
export const COVERAGE_STATUSES = ["covered", "impl_only", "test_only", "uncovered"] as const;
export type CoverageStatus = (typeof COVERAGE_STATUSES)[number];

export const MISSING = ["impl", "test", "any"] as const;
export type Missing = (typeof MISSING)[number];

/** Citation counts of one requirement over the snapshots considered. */
export interface CitationTally {
  impl: number;
  test: number;
  doc: number;
  /** Citations pinned to a revision older than the requirement's current one. */
  suspect: number;
}

export const EMPTY_TALLY: CitationTally = { impl: 0, test: 0, doc: 0, suspect: 0 };

export function coverageStatus(t: Pick<CitationTally, "impl" | "test">): CoverageStatus {
  if (t.impl > 0 && t.test > 0) return "covered";
  if (t.impl > 0) return "impl_only";
  if (t.test > 0) return "test_only";
  return "uncovered";
}

/** True when a requirement with this tally lacks what `missing` asks about. */
export function lacks(t: Pick<CitationTally, "impl" | "test">, missing: Missing): boolean {
  if (missing === "impl") return t.impl === 0;
  if (missing === "test") return t.test === 0;
  return t.impl === 0 || t.test === 0;
}

/**
 * A citation is suspect when it is pinned to a revision older than the entity's current one: the code was
 * written against text that has changed since. The one rule: queries that filter on it use its SQL form,
 * `citationPinnedBefore` (db/trace-coverage.repo.ts); a citation whose entity is gone is an orphan instead.
 */
export function isSuspect(pinned: number | null, current: number): boolean {
  return pinned !== null && pinned < current;
}

export type CoverageCounts = Record<CoverageStatus, number>;

export function countStatuses(statuses: Iterable<CoverageStatus>): CoverageCounts {
  const counts: CoverageCounts = { covered: 0, impl_only: 0, test_only: 0, uncovered: 0 };
  for (const s of statuses) counts[s]++;
  return counts;
}

export interface StatusChange {
  reference_id: string;
  from: CoverageStatus;
  to: CoverageStatus;
}

/** Requirements whose status differs between two states (same keys), in the order of `now`. */
export function statusChanges(
  before: Map<string, CoverageStatus>,
  now: Map<string, CoverageStatus>,
): StatusChange[] {
  const changes: StatusChange[] = [];
  for (const [id, to] of now) {
    const from = before.get(id) ?? "uncovered";
    if (from !== to) changes.push({ reference_id: id, from, to });
  }
  return changes;
}

/**
 * One project's trace index: the scan, what is known about every cited id (local catalog, hosted server or
 * unknown), and the coverage computed from both. Built by `trace-service.ts`, read by the tools and the CLI.
 */
import type { Citation, IdForm } from "./citations.js";
import { type Coverage, coverageOf, type RequirementInfo } from "./coverage.js";
import type { CommitCitation } from "./git.js";
import type { HostedTarget, ResolvedReference } from "./hosted.js";
import { resolveReferences } from "./hosted.js";
import type { ScanResult } from "./scan.js";

/** Ids the hosted server knows (the contract): other configured prefixes stay local and unknown. */
export const HOSTED_ID = /^(EP|US|REQ|AC)-\d+$/;

export interface TraceIndex {
  scan: ScanResult;
  citations: Citation[];
  byId: Map<string, Citation[]>;
  commitsById: Map<string, CommitCitation[]>;
  info: Map<string, RequirementInfo>;
  coverage: Coverage;
  /** Set when a hosted server was given but could not answer (ids then stay unknown). */
  hosted_error: string | null;
}

export function localInfo(scan: ScanResult): RequirementInfo[] {
  return [...scan.catalog.byIndex.values()].map((r) => ({
    id: r.index,
    form: "reqlix" as const,
    exists: true,
    title: r.title,
    status: "Active",
    revision: r.revision,
    category: r.category,
  }));
}

function hostedPrefix(id: string): string {
  return id.slice(0, id.indexOf("-"));
}

export function infoFor(
  id: string,
  form: IdForm,
  scan: ScanResult,
  resolved: Map<string, ResolvedReference> | undefined,
): RequirementInfo {
  if (form === "reqlix") {
    const r = scan.catalog.byIndex.get(id);
    return r
      ? {
          id,
          form,
          exists: true,
          title: r.title,
          status: "Active",
          revision: r.revision,
          category: r.category,
        }
      : { id, form, exists: false, title: null, status: null, revision: null, category: null };
  }
  const ref = resolved?.get(id);
  if (!ref)
    return { id, form, exists: null, title: null, status: null, revision: null, category: hostedPrefix(id) };
  return {
    id,
    form,
    exists: ref.found,
    title: ref.title ?? null,
    status: ref.status ?? null,
    revision: typeof ref.revision === "number" ? ref.revision : null,
    category: hostedPrefix(id),
  };
}

/** Resolution of hosted ids with a short memory, so repeated tool calls do not ask the server each time. */
export class HostedResolver {
  private readonly memo = new Map<string, { ref: ResolvedReference; at: number }>();
  constructor(
    readonly target: HostedTarget | undefined,
    private readonly ttlMs = 60_000,
  ) {}

  async resolve(
    ids: string[],
    signal?: AbortSignal,
  ): Promise<{ resolved: Map<string, ResolvedReference> | undefined; error: string | null }> {
    if (!this.target) return { resolved: undefined, error: null };
    const now = Date.now();
    const out = new Map<string, ResolvedReference>();
    const missing: string[] = [];
    for (const id of ids) {
      if (!HOSTED_ID.test(id)) continue;
      const hit = this.memo.get(id);
      if (hit && now - hit.at < this.ttlMs) out.set(id, hit.ref);
      else missing.push(id);
    }
    if (missing.length > 0) {
      try {
        const got = await resolveReferences(this.target, missing, signal);
        for (const id of missing) {
          const ref = got.get(id);
          if (!ref) continue;
          out.set(id, ref);
          this.memo.set(id, { ref, at: now });
        }
      } catch (error) {
        return { resolved: out, error: (error as Error).message };
      }
    }
    return { resolved: out, error: null };
  }
}

export async function buildIndex(
  scan: ScanResult,
  hosted: HostedResolver,
  signal?: AbortSignal,
): Promise<TraceIndex> {
  // Every citation as an object, and by id: made when first asked for (the CLI needs neither unless it
  // pushes; its coverage reads the stored citations' facts).
  let citations: Citation[] | undefined;
  let byId: Map<string, Citation[]> | undefined;
  const allCitations = (): Citation[] => {
    citations ??= [...scan.byFile.values()].flat();
    return citations;
  };
  const citationsById = (): Map<string, Citation[]> => {
    if (!byId) {
      byId = new Map();
      for (const c of allCitations()) {
        const l = byId.get(c.id);
        if (l) l.push(c);
        else byId.set(c.id, [c]);
      }
    }
    return byId;
  };
  const commitsById = new Map<string, CommitCitation[]>();
  for (const commit of scan.commits) {
    for (const id of commit.ids) {
      const l = commitsById.get(id);
      if (l) l.push(commit);
      else commitsById.set(id, [commit]);
    }
  }
  const hostedIds: string[] = [];
  if (hosted.target) {
    const cited = new Set<string>();
    scan.eachCitation((c) => cited.add(c.id));
    for (const id of cited) if (HOSTED_ID.test(id)) hostedIds.push(id);
  }
  const { resolved, error } = await hosted.resolve(hostedIds, signal);
  const info = new Map<string, RequirementInfo>();
  const lookup = (id: string, form: IdForm): RequirementInfo => {
    let i = info.get(id);
    if (!i) {
      i = infoFor(id, form, scan, resolved);
      info.set(id, i);
    }
    return i;
  };
  const universe = localInfo(scan);
  for (const u of universe) info.set(u.id, u);
  const coverage = coverageOf(scan.eachCitation, universe, lookup);
  return {
    scan,
    get citations() {
      return allCitations();
    },
    get byId() {
      return citationsById();
    },
    commitsById,
    info,
    coverage,
    hosted_error: error,
  };
}

/**
 * The trace queries behind the tools and the CLI, over one in-memory index per project root. Every query
 * but `traceFile` rescans first (incremental: only changed files are read). `traceFile` is the call an
 * assistant makes before each edit, so it must be quick: it always rescans the file asked about, and reuses
 * the rest of the index when it is at most `FILE_INDEX_MAX_AGE_MS` old.
 */

import { readFileSync } from "node:fs";
import { lstat, realpath } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { DomainError } from "../../core/errors.js";
import { checkProjectRoot, toPosix } from "../reqlix/paths.js";
import type { Citation } from "./citations.js";
import { COVERAGE_STATUSES, type CoverageRow, type CoverageStatus } from "./coverage.js";
import type { HostedTarget } from "./hosted.js";
import { buildIndex, HostedResolver, infoFor, type TraceIndex } from "./index-model.js";
import { newScanState, type ScanState, scanProject } from "./scan.js";
import { classifier, fileFilter } from "./scan-rules.js";

export const FILE_INDEX_MAX_AGE_MS = 2000;

type Env = Readonly<Record<string, string | undefined>>;

interface Project {
  state: ScanState;
  index?: TraceIndex;
  at: number;
  running?: Promise<TraceIndex>;
}

export function hostedFromEnv(env: Env): HostedTarget | undefined {
  const url = env.REQLIX_URL?.trim();
  const token = env.REQLIX_TOKEN?.trim();
  return url && token ? { url, token } : undefined;
}

/** `REQ-12`, `req-012` → `REQ-012`; `g.gi.03` → `G.GI.3`; anything else → undefined. */
export function canonicalId(raw: string): { id: string; form: "hosted" | "reqlix" } | undefined {
  const s = raw.trim().replace(/@\d+$/, "");
  const h = /^([A-Za-z]{1,10})-(\d+)$/.exec(s);
  if (h)
    return {
      id: `${(h[1] as string).toUpperCase()}-${(h[2] as string).replace(/^0+(?=\d)/, "").padStart(3, "0")}`,
      form: "hosted",
    };
  const r = /^([A-Za-z][A-Za-z0-9]*)\.([A-Za-z][A-Za-z0-9]*)\.(\d+)$/.exec(s);
  if (r)
    return {
      id: `${(r[1] as string).toUpperCase()}.${(r[2] as string).toUpperCase()}.${Number(r[3])}`,
      form: "reqlix",
    };
  return undefined;
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** A path inside the project (the reqlix containment rules: symbolic links resolved), relative, `/`-separated. */
export async function containedPath(root: string, path: string): Promise<{ rel: string; exists: boolean }> {
  const abs = isAbsolute(path) ? resolve(path) : resolve(root, path);
  const outside = () =>
    DomainError.forbidden(
      `path "${path}" is outside the project root ${root}. The trace tools only read files inside the project; pass a path relative to project_root or an absolute path inside it.`,
    );
  if (!inside(root, abs)) throw outside();
  // The deepest existing ancestor (or the file) must resolve inside the root: no way out through a link.
  let probe = abs;
  let exists = true;
  for (;;) {
    try {
      await lstat(probe);
      break;
    } catch {
      exists = false;
      const parent = dirname(probe);
      if (parent === probe) break;
      probe = parent;
    }
  }
  const real = await realpath(probe).catch(() => probe);
  if (!inside(root, real)) throw outside();
  const rel = toPosix(relative(root, exists ? real : abs));
  if (rel === "")
    throw DomainError.invalid("path is the project root itself; pass a file inside it.", [
      { field: "path", message: "must name a file" },
    ]);
  return { rel, exists };
}

export class TraceService {
  private readonly projects = new Map<string, Project>();
  private readonly hosted: HostedResolver;

  constructor(
    private readonly env: Env,
    hosted: HostedTarget | undefined = hostedFromEnv(env),
  ) {
    this.hosted = new HostedResolver(hosted);
  }

  /** The project's index, rescanned unless it is younger than `maxAgeMs`. Concurrent calls share one scan. */
  async index(
    projectRoot: string,
    maxAgeMs = 0,
    signal?: AbortSignal,
  ): Promise<{ root: string; index: TraceIndex }> {
    const root = await checkProjectRoot(projectRoot);
    let p = this.projects.get(root);
    if (!p) {
      p = { state: newScanState(), at: 0 };
      this.projects.set(root, p);
    }
    const project = p;
    if (project.index && Date.now() - project.at <= maxAgeMs) return { root, index: project.index };
    if (!project.running) {
      project.running = (async () => {
        const scan = await scanProject(root, { env: this.env, state: project.state, signal });
        const index = await buildIndex(scan, this.hosted, signal);
        project.index = index;
        project.at = Date.now();
        return index;
      })().finally(() => {
        project.running = undefined;
      });
    }
    return { root, index: await project.running };
  }

  /** Requirements governing one file: cited in it, or cited by the tests that cite the same ids. */
  async traceFile(projectRoot: string, path: string, signal?: AbortSignal) {
    const { root, index } = await this.index(projectRoot, FILE_INDEX_MAX_AGE_MS, signal);
    const { rel, exists } = await containedPath(root, path);
    const scan = index.scan;
    // The file itself is always read now: the assistant is about to edit it.
    let here: Citation[] = [];
    let skipped: string | null = null;
    if (exists && fileFilter(scan.config, scan.catalog.relPath)(rel)) {
      try {
        const buf = readFileSync(resolve(root, rel));
        if (buf.length > scan.config.maxFileBytes) skipped = "too_large";
        else if (buf.subarray(0, 8000).includes(0)) skipped = "binary";
        else here = scan.matcher.scan(buf, rel, classifier(scan.config)(rel));
      } catch {
        skipped = "unreadable";
      }
    }
    const direct = new Map<string, Citation[]>();
    for (const c of here) direct.set(c.id, [...(direct.get(c.id) ?? []), c]);
    // One hop through the tests: a test citing an id cited here also tells which other requirements apply.
    const viaTests = new Map<string, Set<string>>();
    for (const id of direct.keys()) {
      for (const c of index.byId.get(id) ?? []) {
        if (c.kind !== "test" || c.file === rel) continue;
        for (const other of index.scan.byFile.get(c.file) ?? []) {
          if (direct.has(other.id)) continue;
          const s = viaTests.get(other.id) ?? new Set<string>();
          s.add(c.file);
          viaTests.set(other.id, s);
        }
      }
    }
    const describe = (id: string, form: "hosted" | "reqlix") => {
      const info = index.info.get(id) ?? infoFor(id, form, scan, undefined);
      const local = form === "reqlix" ? scan.catalog.byIndex.get(id) : undefined;
      const row = index.coverage.rows.find((r) => r.id === id);
      const tests = (index.byId.get(id) ?? []).filter((c) => c.kind === "test");
      return {
        id,
        exists: info.exists,
        title: info.title,
        status: info.status,
        revision: info.revision,
        coverage: row?.coverage ?? null,
        text: local?.text ?? null,
        tests: tests.slice(0, 20).map((c) => ({ file: c.file, line: c.line, test_name: c.test_name })),
      };
    };
    const requirements = [
      ...[...direct].map(([id, cs]) => ({
        ...describe(id, (cs[0] as Citation).form),
        cited_here: cs.map((c) => ({ line: c.line, column: c.column, revision: c.revision, kind: c.kind })),
        suspect: cs.some(
          (c) =>
            c.revision !== null &&
            index.info.get(id)?.revision != null &&
            c.revision < (index.info.get(id)?.revision as number),
        ),
        via_tests: [] as string[],
      })),
      ...[...viaTests].map(([id, files]) => ({
        ...describe(id, canonicalId(id)?.form ?? "hosted"),
        cited_here: [],
        suspect: false,
        via_tests: [...files].sort(),
      })),
    ];
    return {
      path: rel,
      exists,
      skipped,
      requirements,
      index_scanned_at: index.scan.scanned_at,
      ...(index.hosted_error ? { hosted_error: index.hosted_error } : {}),
      ...(requirements.length === 0
        ? {
            note: "No requirement is cited in this file or in tests citing the same ids. Find the requirements it implements (reqlix_search_requirements, or the hosted search) and cite their ids in a comment.",
          }
        : {}),
    };
  }

  async traceRequirement(projectRoot: string, rawId: string, signal?: AbortSignal) {
    const parsed = canonicalId(rawId);
    if (!parsed) {
      throw DomainError.invalid(
        `id "${rawId}" is not a requirement id: pass a hosted id such as REQ-012 or US-003, or a reqlix index such as G.GI.3.`,
        [{ field: "id", message: "expected REQ-012 or G.GI.3" }],
      );
    }
    const { index } = await this.index(projectRoot, 0, signal);
    const { id, form } = parsed;
    const info = index.info.get(id) ?? infoFor(id, form, index.scan, undefined);
    const cites = index.byId.get(id) ?? [];
    const row = index.coverage.rows.find((r) => r.id === id);
    return {
      id,
      exists: info.exists,
      title: info.title,
      status: info.status,
      revision: info.revision,
      text: form === "reqlix" ? (index.scan.catalog.byIndex.get(id)?.text ?? null) : null,
      coverage: row?.coverage ?? (info.exists === false ? "orphan" : "uncovered"),
      citations: cites.map((c) => ({
        file: c.file,
        line: c.line,
        column: c.column,
        kind: c.kind,
        test_name: c.test_name,
        revision: c.revision,
        suspect: c.revision !== null && info.revision !== null && c.revision < info.revision,
        snippet: c.snippet,
      })),
      commits: (index.commitsById.get(id) ?? []).map((c) => ({ sha: c.sha, subject: c.subject })),
      ...(index.hosted_error ? { hosted_error: index.hosted_error } : {}),
    };
  }

  async traceCoverage(
    projectRoot: string,
    filters: { status?: CoverageStatus; category?: string; limit: number; cursor?: string },
    signal?: AbortSignal,
  ) {
    const { index } = await this.index(projectRoot, 0, signal);
    const offset = filters.cursor === undefined ? 0 : Number(filters.cursor);
    if (
      filters.cursor !== undefined &&
      (!/^\d{1,9}$/.test(filters.cursor) || offset > index.coverage.rows.length)
    ) {
      throw DomainError.invalid(
        `cursor "${filters.cursor}" is not a cursor this tool returned; pass next_cursor from the previous answer, or omit it.`,
        [{ field: "cursor", message: "unknown cursor" }],
      );
    }
    const category = filters.category?.toLowerCase();
    const rows = index.coverage.rows.filter(
      (r: CoverageRow) =>
        (!filters.status || r.coverage === filters.status) &&
        (!category || r.category?.toLowerCase() === category),
    );
    const page = rows.slice(offset, offset + filters.limit);
    const next = offset + page.length < rows.length ? String(offset + page.length) : null;
    return {
      summary: { requirements: index.coverage.rows.length, ...index.coverage.summary },
      total: rows.length,
      rows: page.map((r) => ({
        id: r.id,
        title: r.title,
        category: r.category,
        exists: r.exists,
        status: r.status,
        coverage: r.coverage,
        impl: r.impl,
        test: r.test,
        doc: r.doc,
        suspect: r.suspect,
      })),
      next_cursor: next,
      scan: { files: index.scan.files, skipped: index.scan.skipped, scanned_at: index.scan.scanned_at },
      ...(index.hosted_error ? { hosted_error: index.hosted_error } : {}),
    };
  }

  async traceOrphans(projectRoot: string, signal?: AbortSignal) {
    const { index } = await this.index(projectRoot, 0, signal);
    const slim = (c: Citation) => ({
      id: c.id,
      file: c.file,
      line: c.line,
      column: c.column,
      kind: c.kind,
      snippet: c.snippet,
    });
    return {
      orphans: index.coverage.orphans.map(slim),
      suspects: index.coverage.suspects.map((c) => ({
        ...slim(c),
        revision: c.revision,
        current_revision: c.current_revision,
      })),
      unknown: index.coverage.rows.filter((r) => r.exists === null).map((r) => r.id),
      ...(index.hosted_error ? { hosted_error: index.hosted_error } : {}),
    };
  }
}

export { COVERAGE_STATUSES };

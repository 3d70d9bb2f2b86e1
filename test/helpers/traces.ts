/** Building and pushing trace snapshots (`POST /api/v1/traces`) in tests, as `reqlix-mcp trace` sends them. */
import type { TestApp } from "./app.js";

export interface CitationIn {
  id: string;
  revision?: number | null;
  file?: string;
  line?: number;
  column?: number;
  kind?: "impl" | "test" | "doc";
  test_name?: string | null;
  snippet?: string;
}

export function citation(c: CitationIn) {
  return {
    id: c.id,
    revision: c.revision ?? null,
    file: c.file ?? "src/a.ts",
    line: c.line ?? 10,
    column: c.column ?? 5,
    kind: c.kind ?? "impl",
    test_name: c.test_name ?? (c.kind === "test" ? "it works" : null),
    snippet: c.snippet ?? `// ${c.id}`,
  };
}

export function snapshotBody(
  o: {
    repository?: string;
    commit?: string;
    branch?: string | null;
    citations?: CitationIn[];
    commits?: { sha: string; ids: string[]; subject: string }[];
  } = {},
) {
  return {
    schema: 1,
    repository: o.repository ?? "acme/web",
    commit: o.commit ?? "a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0",
    branch: o.branch === undefined ? "main" : o.branch,
    scanned_at: "2026-11-25T10:00:00.000Z",
    citations: (o.citations ?? []).map(citation),
    commits: o.commits ?? [],
  };
}

/** A 40-hex commit id made from a number (distinct numbers, distinct commits). */
export function sha(n: number): string {
  return n.toString(16).padStart(40, "0");
}

export async function pushTraces(
  t: TestApp,
  body: unknown,
  token: string | null = t.ownerToken,
  headers: Record<string, string> = {},
) {
  const res = await t.app.request("/api/v1/traces", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: bodies of several shapes; the assertions check them
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, body: json, text, headers: res.headers };
}

/** Row counts of the trace tables (all workspaces), straight from the database. */
export async function traceRowCounts(t: TestApp): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ["trace_snapshots", "trace_citations", "trace_commits"]) {
    const rs = await t.database.client.execute(`SELECT count(*) AS n FROM ${table}`);
    out[table] = Number(rs.rows[0]?.n);
  }
  return out;
}

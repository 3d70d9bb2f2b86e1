/** The CLI's renderings of a trace matrix: table (people), json (scripts), markdown (PR comments), junit (CI). */
import type { Citation } from "./citations.js";
import type { CoverageRow, SuspectCitation } from "./coverage.js";

export type Format = "table" | "json" | "markdown" | "junit";
export const FORMATS: Format[] = ["table", "json", "markdown", "junit"];

export interface Matrix {
  summary: Record<string, number>;
  rows: CoverageRow[];
  orphans: Citation[];
  suspects: SuspectCitation[];
  gates: { checked: string[]; failed: string[] };
  scan: { files: number; skipped: Record<string, number>; scanned_at: string; git: boolean };
  hosted_error: string | null;
  push?: unknown;
}

const where = (c: Citation) => `${c.file}:${c.line}:${c.column}`;

function pad(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

function cells(r: CoverageRow): string[] {
  return [
    r.id,
    r.coverage,
    r.exists === null ? "unknown" : r.exists ? (r.status ?? "") : "missing",
    String(r.impl),
    String(r.test),
    String(r.doc),
    String(r.suspect),
    r.title ?? "",
  ];
}

const HEAD = ["ID", "COVERAGE", "STATUS", "IMPL", "TEST", "DOC", "SUSPECT", "TITLE"];

function summaryLine(m: Matrix): string {
  const s = m.summary;
  return `${m.rows.length} requirements: ${s.covered} covered, ${s.impl_only} impl_only, ${s.test_only} test_only, ${s.uncovered} uncovered; ${s.orphan} orphan and ${s.suspect} suspect citations; ${m.scan.files} files scanned (${m.scan.skipped.binary} binary, ${m.scan.skipped.too_large} too large skipped)`;
}

function gateLine(m: Matrix): string {
  if (m.gates.checked.length === 0) return "No gate checked (--fail-on).";
  return m.gates.failed.length === 0
    ? `Gates passed: ${m.gates.checked.join(", ")}.`
    : `Gates FAILED: ${m.gates.failed.join(", ")} (checked: ${m.gates.checked.join(", ")}).`;
}

function escapeXml(s: string): string {
  return s.replace(
    /[<>&"']/g,
    (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c] as string,
  );
}

export function render(m: Matrix, format: Format): string {
  switch (format) {
    case "json":
      return `${JSON.stringify(m, null, 2)}\n`;
    case "table": {
      const lines = [summaryLine(m), "", pad([HEAD, ...m.rows.map(cells)])];
      if (m.orphans.length > 0)
        lines.push(
          "",
          "Orphan citations (ids that do not exist):",
          ...m.orphans.map((c) => `  ${c.id}  ${where(c)}`),
        );
      if (m.suspects.length > 0)
        lines.push(
          "",
          "Suspect citations (pinned to another revision):",
          ...m.suspects.map((c) => `  ${c.id}@${c.revision} (now ${c.current_revision})  ${where(c)}`),
        );
      if (m.hosted_error) lines.push("", `Hosted ids left unknown: ${m.hosted_error}`);
      lines.push("", gateLine(m));
      return `${lines.join("\n")}\n`;
    }
    case "markdown": {
      const cell = (s: string) => s.replace(/\|/g, "\\|");
      const lines = [
        "## Requirement traceability",
        "",
        summaryLine(m),
        "",
        `| ${HEAD.join(" | ")} |`,
        `|${HEAD.map(() => "---").join("|")}|`,
        ...m.rows.map((r) => `| ${cells(r).map(cell).join(" | ")} |`),
      ];
      if (m.orphans.length > 0)
        lines.push(
          "",
          "**Orphan citations**",
          "",
          ...m.orphans.map((c) => `- \`${c.id}\` at \`${where(c)}\``),
        );
      if (m.suspects.length > 0)
        lines.push(
          "",
          "**Suspect citations**",
          "",
          ...m.suspects.map(
            (c) => `- \`${c.id}@${c.revision}\` (now ${c.current_revision}) at \`${where(c)}\``,
          ),
        );
      lines.push("", gateLine(m));
      return `${lines.join("\n")}\n`;
    }
    case "junit": {
      const failOn = new Set(m.gates.checked);
      const cases: string[] = [];
      let failures = 0;
      for (const r of m.rows) {
        const failed = failOn.has(r.coverage);
        if (failed) failures++;
        const name = escapeXml(`${r.id}${r.title ? `: ${r.title}` : ""}`);
        cases.push(
          failed
            ? `    <testcase classname="requirements" name="${name}"><failure message="${r.coverage}">${escapeXml(`${r.id} is ${r.coverage} (impl ${r.impl}, test ${r.test})`)}</failure></testcase>`
            : `    <testcase classname="requirements" name="${name}"/>`,
        );
      }
      for (const [kind, list] of [
        ["orphan", m.orphans],
        ["suspect", m.suspects],
      ] as const) {
        for (const c of list) {
          const failed = failOn.has(kind);
          if (failed) failures++;
          const name = escapeXml(`${kind} ${c.id} at ${where(c)}`);
          cases.push(
            failed
              ? `    <testcase classname="citations" name="${name}"><failure message="${kind}"/></testcase>`
              : `    <testcase classname="citations" name="${name}"/>`,
          );
        }
      }
      return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n  <testsuite name="reqlix trace" tests="${cases.length}" failures="${failures}">\n${cases.join("\n")}\n  </testsuite>\n</testsuites>\n`;
    }
  }
}

/**
 * Finding requirement citations in text: hosted ids (`REQ-012`, `AC-7`) and reqlix indices of the project's
 * own categories (`G.GI.3`), each optionally pinned to a revision (`REQ-012@3`, `G.GI.3@2`).
 *
 * Files are matched as latin1 strings (one char per byte, no UTF-8 decoding of the whole file, and every id
 * is ASCII), and a line is decoded only when it holds a match.
 */

import type { CitationKind, TraceCitation } from "../../core/trace-snapshot.js";

export type { CitationKind };
export type IdForm = "hosted" | "reqlix";

/**
 * One citation: the shape a push sends (core's `TraceCitation`: canonical id — hosted numbers padded to three
 * digits, reqlix numbers unpadded —, pinned revision or null, `/`-separated path, 1-based line and column in
 * characters, kind, the test title when the id sits in one on that line, the trimmed line ≤ 200 characters),
 * plus which form of id it is.
 */
export interface Citation extends TraceCitation {
  form: IdForm;
}

export interface FoundId {
  id: string;
  form: IdForm;
  revision: number | null;
}

export interface TitleSpan {
  start: number;
  end: number;
  text: string;
}

/**
 * The matcher and its helpers, self-contained on purpose (nothing outside the function but built-ins): the
 * reader thread of a cold scan runs this function's source to match the files it reads (file-reader.ts).
 */
export function citationKernel() {
  const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const WORD = /^\w$/;
  /** A character \b counts as a word character: [A-Za-z0-9_]. */
  const isWordCode = (c: number) =>
    (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;

  class CitationMatcher {
    readonly source: string;
    readonly hostedPrefixes: string[];
    readonly reqlixPrefixes: string[];

    constructor(hostedPrefixes: string[], reqlixCategoryPrefixes: string[]) {
      this.hostedPrefixes = [...hostedPrefixes];
      this.reqlixPrefixes = [...new Set(reqlixCategoryPrefixes.map((p) => p.toUpperCase()))];
      const parts: string[] = [];
      if (this.hostedPrefixes.length > 0)
        parts.push(`(${this.hostedPrefixes.map(escapeRegex).join("|")})-([0-9]{1,15})`);
      else parts.push("(?!)()()");
      if (this.reqlixPrefixes.length > 0)
        parts.push(`(${this.reqlixPrefixes.map(escapeRegex).join("|")})\\.([A-Z][A-Z0-9]*)\\.([0-9]+)`);
      else parts.push("(?!)()()()");
      // \b on both sides: `XREQ-1`, `REQ-1a` and `G.GI.3x` are not citations. The hosted server takes
      // numbers below 2^53 and revisions from 1: a longer number is no id, `REQ-1@0` is cited unpinned.
      const body = `(?:${parts.join("|")})(?:@([1-9][0-9]{0,8}))?\\b`;
      this.source = `\\b${body}`;
      // Every prefix starts with a word character, so the leading \b only asks that the character before is
      // none: checked by `next`, it lets V8 skip ahead on the prefixes' first letters (the search runs ~1.6×
      // faster without it).
      this.searchSource = [...this.hostedPrefixes, ...this.reqlixPrefixes].every((p) => WORD.test(p[0] ?? ""))
        ? body
        : this.source;
    }

    /** `source` as searched: the same matches once `next` has refused those preceded by a word character. */
    readonly searchSource: string;
    compiled: RegExp | undefined;

    /** The global regex, compiled once per matcher (compiling per file costs more than searching it). */
    regex(): RegExp {
      this.compiled ??= new RegExp(this.searchSource, "g");
      this.compiled.lastIndex = 0;
      return this.compiled;
    }

    /** The next match of `source` in `text` from `re.lastIndex`. */
    next(re: RegExp, text: string): RegExpExecArray | null {
      let m = re.exec(text);
      while (m !== null && m.index > 0 && isWordCode(text.charCodeAt(m.index - 1))) {
        re.lastIndex = m.index + 1;
        m = re.exec(text);
      }
      return m;
    }

    /** The same pattern in POSIX ERE for `git grep -E` (the benchmark's baseline). */
    ereSource(): string {
      const alts: string[] = [];
      if (this.hostedPrefixes.length > 0) alts.push(`(${this.hostedPrefixes.join("|")})-[0-9]{1,15}`);
      if (this.reqlixPrefixes.length > 0)
        alts.push(`(${this.reqlixPrefixes.join("|")})\\.[A-Z][A-Z0-9]*\\.[0-9]+`);
      return `\\b(${alts.join("|")})(@[1-9][0-9]{0,8})?\\b`;
    }

    static toFound(m: RegExpExecArray): FoundId {
      const revision = m[6] === undefined ? null : Number(m[6]);
      if (m[1] !== undefined) {
        const n = m[2] as string;
        const digits = n.replace(/^0+(?=\d)/, "");
        return { id: `${m[1]}-${digits.padStart(3, "0")}`, form: "hosted", revision };
      }
      return { id: `${m[3]}.${m[4]}.${Number(m[5])}`, form: "reqlix", revision };
    }

    /** Ids cited in a piece of text (a commit message), each once. */
    idsIn(text: string): FoundId[] {
      const out = new Map<string, FoundId>();
      const re = this.regex();
      for (let m = this.next(re, text); m; m = this.next(re, text)) {
        const f = CitationMatcher.toFound(m);
        if (!out.has(f.id)) out.set(f.id, f);
      }
      return [...out.values()];
    }

    /** Every citation in a file's bytes. */
    scan(buf: Buffer, file: string, kind: CitationKind): Citation[] {
      const text = buf.toString("latin1");
      const re = this.regex();
      let m = this.next(re, text);
      if (!m) return [];
      const out: Citation[] = [];
      let line = 1;
      let lineStart = 0;
      let counted = 0;
      let cachedLine: { start: number; decoded: string; titles: TitleSpan[] } | undefined;
      for (; m; m = this.next(re, text)) {
        // Count the newlines between the previous match and this one.
        for (
          let nl = text.indexOf("\n", counted);
          nl !== -1 && nl < m.index;
          nl = text.indexOf("\n", nl + 1)
        ) {
          line++;
          lineStart = nl + 1;
        }
        counted = m.index;
        if (cachedLine?.start !== lineStart) {
          let end = text.indexOf("\n", m.index);
          if (end === -1) end = text.length;
          if (end > lineStart && text.charCodeAt(end - 1) === 13) end--;
          const decoded = buf.toString("utf8", lineStart, end);
          cachedLine = { start: lineStart, decoded, titles: kind === "test" ? testTitles(decoded) : [] };
        }
        const before = text.slice(lineStart, m.index);
        const column =
          (/[\u0080-\u00ff]/.test(before)
            ? Buffer.from(before, "latin1").toString("utf8").length
            : before.length) + 1;
        const found = CitationMatcher.toFound(m);
        const title = cachedLine.titles.find((t) => column - 1 >= t.start && column - 1 < t.end);
        out.push({
          ...found,
          file,
          line,
          column,
          kind,
          test_name: title ? title.text : null,
          snippet: snippetOf(cachedLine.decoded),
        });
      }
      return out;
    }
  }

  function snippetOf(line: string): string {
    const t = line.trim();
    return t.length <= 200 ? t : `${t.slice(0, 199)}…`;
  }

  /**
   * Test titles on a line: the first string argument of a test-declaring call in the common frameworks
   * (vitest/jest/mocha `it`/`test`/`describe`, Go `t.Run`, RSpec, JUnit `@DisplayName`, Kotest, pytest-bdd).
   * Spans are in characters of the decoded line.
   */
  const TITLE =
    /(?<![\w$.])(?:it|test|describe|context|specify|suite|scenario|feature|Describe|Context|It|Specify|When|Then|Given|DisplayName|(?:t|s|b|suite)\.Run)(?:\.(?:only|skip|todo|concurrent|sequential|fails|each\s*\([^)]*\)))*\s*\(\s*(["'`])((?:\\.|(?!\1)[^\\])*)\1/g;

  function testTitles(line: string): TitleSpan[] {
    const spans: TitleSpan[] = [];
    TITLE.lastIndex = 0;
    for (let m = TITLE.exec(line); m; m = TITLE.exec(line)) {
      const body = m[2] as string;
      const start = m.index + m[0].length - body.length - 1;
      // The hosted server keeps test names of at most 500 characters.
      const text = body.length <= 500 ? body : `${body.slice(0, 499)}…`;
      spans.push({ start, end: start + body.length, text });
    }
    return spans;
  }

  return { CitationMatcher, snippetOf, testTitles };
}

const kernel = citationKernel();
export const CitationMatcher = kernel.CitationMatcher;
export type CitationMatcher = InstanceType<typeof CitationMatcher>;
export const snippetOf = kernel.snippetOf;
export const testTitles = kernel.testTitles;

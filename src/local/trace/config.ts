/**
 * `.reqlix/trace.yaml`: which files the trace scanner reads, what counts as test code, which ids it looks
 * for. Every key is optional; a malformed file is refused with its line and column (never half-applied).
 * The YAML parser (`config-parse.ts`) is loaded only when the file exists: a CI run without one never
 * evaluates it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const CONFIG_PATH = ".reqlix/trace.yaml";

export interface TraceConfig {
  /** Prefixes of hosted ids (`REQ` → `REQ-012`); upper-case letters. */
  hostedPrefixes: string[];
  /** Look for reqlix indices (`G.GI.3`) of the project's own categories. */
  reqlixIndices: boolean;
  include: string[];
  exclude: string[];
  /** Globs of test code. */
  tests: string[];
  /** Globs of documentation (citations there are `doc`). */
  docs: string[];
  maxFileBytes: number;
  /** How many commits of `git log` are read for citing messages (0: none). */
  historyCommits: number;
}

export const DEFAULT_TESTS = [
  "**/*.test.*",
  "**/*.spec.*",
  "**/*_test.*",
  "**/test_*.py",
  "**/*_spec.rb",
  "**/*Test.java",
  "**/*Tests.cs",
  "test/**",
  "tests/**",
  "spec/**",
  "**/__tests__/**",
];

export const DEFAULT_CONFIG: TraceConfig = {
  hostedPrefixes: ["EP", "US", "REQ", "AC"],
  reqlixIndices: true,
  include: ["**"],
  exclude: [],
  tests: DEFAULT_TESTS,
  docs: ["**/*.md", "**/*.markdown", "**/*.mdx", "**/*.txt", "**/*.rst", "**/*.adoc"],
  maxFileBytes: 1024 * 1024,
  historyCommits: 1000,
};

export async function loadTraceConfig(root: string): Promise<TraceConfig> {
  let text: string | undefined;
  try {
    // Synchronous: one small read (usually of a missing file) costs less than a trip through the thread pool.
    text = readFileSync(join(root, CONFIG_PATH), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (text === undefined || text.trim() === "") return { ...DEFAULT_CONFIG };
  const { parseTraceConfig } = await import("./config-parse.js");
  return parseTraceConfig(text);
}

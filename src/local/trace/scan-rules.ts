/**
 * The scan's rules: which files it scans and the kind of each (`.reqlix/trace.yaml`'s include, exclude,
 * test and doc globs, through picomatch), and the key that names a cache made under them.
 */
import picomatch from "picomatch";
import type { CitationKind, CitationMatcher } from "./citations.js";
import type { TraceConfig } from "./config.js";
import { hash64 } from "./hash.js";
import type { LocalCatalog } from "./requirements.js";

export function classifier(config: TraceConfig): (path: string) => CitationKind {
  const doc = picomatch(config.docs, { dot: true });
  const test = picomatch(config.tests, { dot: true });
  return (path) => (doc(path) ? "doc" : test(path) ? "test" : "impl");
}

export function fileFilter(config: TraceConfig, requirementsRel: string | null): (path: string) => boolean {
  const include = picomatch(config.include, { dot: true });
  const exclude = config.exclude.length > 0 ? picomatch(config.exclude, { dot: true }) : () => false;
  // The requirement files define ids rather than cite them; .reqlix/ holds the configuration.
  const own = requirementsRel ? `${requirementsRel}/` : undefined;
  return (path) =>
    !path.startsWith(".reqlix/") && !(own && path.startsWith(own)) && include(path) && !exclude(path);
}

export function cacheKey(config: TraceConfig, matcher: CitationMatcher, catalog: LocalCatalog): string {
  const { historyCommits: _h, ...rules } = config;
  return hash64(JSON.stringify([matcher.source, rules, catalog.relPath]));
}

/** Compiled include/exclude/test/doc globs by rule key: a process scanning once (the CLI) compiles once. */
const compiled = new Map<string, (path: string) => CitationKind | null>();

export function kindRules(
  key: string,
  config: TraceConfig,
  catalog: LocalCatalog,
): (path: string) => CitationKind | null {
  let rules = compiled.get(key);
  if (!rules) {
    const wanted = fileFilter(config, catalog.relPath);
    const kindOf = classifier(config);
    rules = (path) => (wanted(path) ? kindOf(path) : null);
    if (compiled.size >= 8) compiled.clear();
    compiled.set(key, rules);
  }
  return rules;
}

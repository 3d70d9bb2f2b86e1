/** Parses `.reqlix/trace.yaml` (see config.ts), naming the line and column of what is wrong. */
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { DomainError } from "../../core/errors.js";
import { CONFIG_PATH, DEFAULT_CONFIG, type TraceConfig } from "./config.js";

const KEYS = {
  hosted_prefixes: "list of upper-case prefixes, e.g. [EP, US, REQ, AC]",
  reqlix_indices: "true or false",
  include: "list of globs",
  exclude: "list of globs",
  tests: "list of globs",
  docs: "list of globs",
  max_file_bytes: "a whole number of bytes ≥ 1",
  history_commits: "a whole number ≥ 0",
} as const;

function where(node: Node | null | undefined, counter: LineCounter, fallback = 0): string {
  const offset = node?.range?.[0] ?? fallback;
  const { line, col } = counter.linePos(offset);
  return `line ${line}, column ${col}`;
}

function invalid(message: string, field: string): DomainError {
  return DomainError.invalid(`${CONFIG_PATH}: ${message}`, [{ field, message }]);
}

function globList(node: unknown, key: string, counter: LineCounter): string[] {
  if (!isSeq(node))
    throw invalid(
      `${key} at ${where(node as Node, counter)} must be ${KEYS[key as keyof typeof KEYS]}.`,
      key,
    );
  return node.items.map((item, i) => {
    if (!isScalar(item) || typeof item.value !== "string" || item.value.trim() === "") {
      throw invalid(
        `${key}[${i}] at ${where(item as Node, counter)} must be a non-empty string (a glob such as "src/**").`,
        `${key}[${i}]`,
      );
    }
    return item.value.trim();
  });
}

/** Parses the text of a trace.yaml; `undefined` text gives the defaults. */
export function parseTraceConfig(text: string | undefined): TraceConfig {
  const config: TraceConfig = { ...DEFAULT_CONFIG };
  if (text === undefined || text.trim() === "") return config;
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const { line, col } = counter.linePos(first.pos[0]);
    throw invalid(
      `not valid YAML at line ${line}, column ${col}: ${first.message.split("\n")[0]}`,
      "trace.yaml",
    );
  }
  const root = doc.contents;
  if (root === null) return config;
  if (!isMap(root))
    throw invalid(
      `the file must be a mapping of keys (${Object.keys(KEYS).join(", ")}); found something else at ${where(root, counter)}.`,
      "trace.yaml",
    );
  for (const pair of root.items) {
    const keyNode = pair.key as Node;
    const key = isScalar(keyNode) ? String(keyNode.value) : "";
    const value = pair.value as Node | null;
    const at = () => where(value ?? keyNode, counter);
    switch (key) {
      case "hosted_prefixes": {
        const list = globList(value, key, counter);
        list.forEach((p, i) => {
          if (!/^[A-Z]{1,10}$/.test(p))
            throw invalid(
              `hosted_prefixes[${i}] "${p}" at ${where((value as { items: Node[] }).items[i], counter)} must be 1–10 upper-case letters (e.g. REQ).`,
              `hosted_prefixes[${i}]`,
            );
        });
        config.hostedPrefixes = list;
        break;
      }
      case "reqlix_indices":
        if (!isScalar(value) || typeof value.value !== "boolean")
          throw invalid(`reqlix_indices at ${at()} must be true or false.`, key);
        config.reqlixIndices = value.value;
        break;
      case "include":
      case "exclude":
      case "tests":
      case "docs":
        config[key] = globList(value, key, counter);
        break;
      case "max_file_bytes":
      case "history_commits": {
        const n = isScalar(value) ? value.value : undefined;
        const min = key === "max_file_bytes" ? 1 : 0;
        if (typeof n !== "number" || !Number.isSafeInteger(n) || n < min)
          throw invalid(`${key} at ${at()} must be ${KEYS[key]}.`, key);
        if (key === "max_file_bytes") config.maxFileBytes = n;
        else config.historyCommits = n;
        break;
      }
      default:
        throw invalid(
          `unknown key "${key}" at ${where(keyNode, counter)}. Known keys: ${Object.keys(KEYS).join(", ")}.`,
          key || "trace.yaml",
        );
    }
  }
  return config;
}

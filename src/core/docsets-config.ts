/**
 * `.knowledge/config.yaml`: text in, validated configuration (or located problems) out. Pure, so the hosted
 * server could accept the same file. REQ-4: syntax errors carry line and column, unknown properties are
 * ignored, a missing `docsets` section is an error; every problem says how to fix it.
 */
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from "yaml";
import {
  DEFAULT_TEMPLATE,
  DocsetCatalog,
  type DocsetDefinition,
  docsetNameProblem,
  docsetVersionProblem,
  findNameConflicts,
  nameConflictMessage,
} from "./docsets.js";
import { resolvePath } from "./docsets-path.js";

export interface DocsetsConfig {
  /** As written; resolved against the `.knowledge` folder by `catalogFromConfig` (REQ-5). */
  docs_root?: string;
  template?: string;
  docsets: DocsetDefinition[];
}

export interface ConfigProblem {
  /** Where in the document, e.g. `docsets[1].version` (empty for the document itself). */
  path: string;
  line?: number;
  column?: number;
  message: string;
}

export type ConfigParseResult =
  | { ok: true; config: DocsetsConfig }
  | { ok: false; kind: "syntax" | "invalid"; problems: ConfigProblem[] };

/** Shown whenever a configuration is missing or unusable, so the fix is one copy away. */
export const MINIMAL_CONFIG_EXAMPLE = `docsets:
  - name: react
    version: "18.2"
    aliases: [reactjs]`;

type Located = { path: string; node: YamlNode | undefined };

class Validator {
  readonly problems: ConfigProblem[] = [];
  constructor(
    private readonly lines: LineCounter,
    private readonly doc: ReturnType<typeof parseDocument>,
  ) {}

  report(at: Located, message: string): void {
    const offset = at.node?.range?.[0];
    const pos = offset === undefined ? undefined : this.lines.linePos(offset);
    this.problems.push({ path: at.path, message, ...(pos ? { line: pos.line, column: pos.col } : {}) });
  }

  /** Follows `*alias` references so anchors work like the values they name. */
  deref(node: unknown): YamlNode | undefined {
    let n = node as YamlNode | undefined;
    for (let i = 0; i < 32 && n && isAlias(n); i++) n = n.resolve(this.doc) as YamlNode | undefined;
    return n;
  }

  isNull(node: YamlNode | undefined): boolean {
    return node === undefined || (isScalar(node) && node.value === null);
  }

  /**
   * A scalar as the text the user wrote: `version: 18.10` is "18.10", not the number 18.1, and
   * `aliases: [2019]` is "2019". Returns `undefined` (after reporting) for maps and lists.
   */
  text(at: Located, what: string): string | undefined {
    const node = at.node;
    if (!isScalar(node)) {
      this.report(at, `${at.path} must be ${what}, not a ${isSeq(node) ? "list" : "mapping"}`);
      return undefined;
    }
    if (typeof node.value === "string") return node.value;
    return node.source ?? String(node.value);
  }
}

function child(v: Validator, map: YamlNode, key: string, path: string): Located | undefined {
  if (!isMap(map)) return undefined;
  const node = v.deref(map.get(key, true));
  if (!map.has(key)) return undefined;
  return { path, node };
}

function parseAliases(v: Validator, at: Located): string[] {
  if (v.isNull(at.node)) return [];
  // A single alias written without brackets is taken as a list of one.
  const items: Located[] = isSeq(at.node)
    ? at.node.items.map((item, i) => ({ path: `${at.path}[${i}]`, node: v.deref(item) }))
    : [at];
  const aliases: string[] = [];
  for (const item of items) {
    const alias = v.text(item, "a docset name (text)");
    if (alias === undefined) continue;
    const problem = docsetNameProblem(alias);
    if (problem) v.report(item, `alias ${item.path} ${problem}`);
    else if (!aliases.includes(alias)) aliases.push(alias);
  }
  return aliases;
}

function optionalText(
  v: Validator,
  at: Located | undefined,
  what: string,
  emptyHint: string,
): string | undefined {
  if (!at || v.isNull(at.node)) return undefined;
  const value = v.text(at, what);
  if (value !== undefined && value.trim() === "") {
    v.report(at, `${at.path} is empty: ${emptyHint}`);
    return undefined;
  }
  return value;
}

function parseDocset(v: Validator, at: Located): DocsetDefinition | undefined {
  const node = at.node;
  if (!isMap(node)) {
    v.report(
      at,
      `${at.path} must be a mapping with name and version, e.g. "- name: react" then "version: \\"18.2\\""`,
    );
    return undefined;
  }
  const nameAt = child(v, node, "name", `${at.path}.name`);
  const versionAt = child(v, node, "version", `${at.path}.version`);
  let name: string | undefined;
  if (!nameAt || v.isNull(nameAt.node)) {
    v.report(at, `${at.path} has no name: add "name: <lowercase name>", e.g. name: react`);
  } else {
    name = v.text(nameAt, "a docset name (text)");
    const problem = name === undefined ? undefined : docsetNameProblem(name);
    if (problem) {
      v.report(nameAt, `${nameAt.path} ${problem}`);
      name = undefined;
    }
  }
  let version: string | undefined;
  if (!versionAt || v.isNull(versionAt.node)) {
    v.report(at, `${at.path}${name ? ` (${name})` : ""} has no version: add e.g. version: "18.2"`);
  } else {
    version = v.text(versionAt, "a version (text)");
    const problem = version === undefined ? undefined : docsetVersionProblem(version);
    if (problem) {
      v.report(versionAt, `${versionAt.path} ${problem}`);
      version = undefined;
    }
  }
  const aliasesAt = child(v, node, "aliases", `${at.path}.aliases`);
  const aliases = aliasesAt ? parseAliases(v, aliasesAt) : [];
  const template = optionalText(
    v,
    child(v, node, "template", `${at.path}.template`),
    "text with {keywords} and {local_path}",
    "remove the line to use the default template",
  );
  const description = optionalText(
    v,
    child(v, node, "description", `${at.path}.description`),
    "text",
    "remove the line or describe the docset",
  );
  if (name === undefined || version === undefined) return undefined;
  return {
    name,
    version,
    aliases: aliases.filter((a) => a !== name),
    ...(template === undefined ? {} : { template }),
    ...(description === undefined ? {} : { description }),
  };
}

/** REQ-3/REQ-4: parses and validates the text of `.knowledge/config.yaml`. */
export function parseDocsetsConfig(text: string): ConfigParseResult {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      kind: "syntax",
      problems: doc.errors.map((e) => {
        const pos = e.linePos?.[0] ?? lines.linePos(e.pos[0]);
        return {
          path: "",
          line: pos.line,
          column: pos.col,
          message: e.message.split(" at line ")[0] ?? e.message,
        };
      }),
    };
  }
  const v = new Validator(lines, doc);
  const root = v.deref(doc.contents ?? undefined);
  const missingDocsets = `missing the \`docsets\` section: add a list of docsets, for example:\n${MINIMAL_CONFIG_EXAMPLE}\n(write \`docsets: []\` for none yet)`;
  if (v.isNull(root)) {
    v.report({ path: "", node: undefined }, `the file is empty, so it is ${missingDocsets}`);
    return { ok: false, kind: "invalid", problems: v.problems };
  }
  if (!isMap(root)) {
    v.report(
      { path: "", node: root },
      `the file must be a mapping with a \`docsets:\` list, not a ${isSeq(root) ? "list" : "single value"}; for example:\n${MINIMAL_CONFIG_EXAMPLE}`,
    );
    return { ok: false, kind: "invalid", problems: v.problems };
  }
  const docsetsAt = child(v, root, "docsets", "docsets");
  const docsets: DocsetDefinition[] = [];
  const itemIndexes: number[] = []; // position in the YAML list of each valid definition
  if (!docsetsAt) {
    v.report({ path: "", node: root }, `the file is ${missingDocsets}`);
  } else if (!v.isNull(docsetsAt.node)) {
    // `docsets:` with nothing after it reads as "none configured" (REQ-2's empty case), like `[]`.
    if (!isSeq(docsetsAt.node)) {
      v.report(
        docsetsAt,
        `docsets must be a list ("- name: …" items), not a ${isMap(docsetsAt.node) ? "mapping" : "single value"}; for example:\n${MINIMAL_CONFIG_EXAMPLE}`,
      );
    } else {
      docsetsAt.node.items.forEach((item, i) => {
        const def = parseDocset(v, { path: `docsets[${i}]`, node: v.deref(item) });
        if (def) {
          docsets.push(def);
          itemIndexes.push(i);
        }
      });
    }
  }
  const docsRoot = optionalText(
    v,
    child(v, root, "docs_root", "docs_root"),
    "a folder path (text)",
    "remove the line to use .knowledge/docs",
  );
  const template = optionalText(
    v,
    child(v, root, "template", "template"),
    "text with {keywords} and {local_path}",
    "remove the line to use the default template",
  );

  // A name or alias must pick exactly one docset.
  for (const conflict of findNameConflicts(docsets)) {
    const yamlIndex = itemIndexes[conflict.index] as number;
    const seq = docsetsAt?.node;
    v.report(
      { path: `docsets[${yamlIndex}]`, node: isSeq(seq) ? v.deref(seq.items[yamlIndex]) : undefined },
      nameConflictMessage(conflict, docsets),
    );
  }

  if (v.problems.length > 0) return { ok: false, kind: "invalid", problems: v.problems };
  return {
    ok: true,
    config: {
      docsets,
      ...(docsRoot === undefined ? {} : { docs_root: docsRoot }),
      ...(template === undefined ? {} : { template }),
    },
  };
}

/** "line 4, column 14: docsets[0].version …" — one line per problem, for error texts. */
export function formatConfigProblems(problems: readonly ConfigProblem[]): string {
  return problems
    .map((p) =>
      p.line === undefined ? `- ${p.message}` : `- line ${p.line}, column ${p.column}: ${p.message}`,
    )
    .join("\n");
}

/**
 * REQ-5: `docs_root` defaults to the `docs` folder inside `.knowledge` (i.e. `.knowledge/docs`); a relative
 * `docs_root` resolves against the `.knowledge` folder; `local_path` uses forward slashes everywhere.
 */
export function catalogFromConfig(config: DocsetsConfig, knowledgeDir: string): DocsetCatalog {
  const docsRoot = resolvePath(knowledgeDir, config.docs_root ?? "docs");
  return new DocsetCatalog(config.docsets, docsRoot, config.template ?? DEFAULT_TEMPLATE);
}

/**
 * Docsets: the contract shared by the companion's `knowledge` toolset and the hosted docsets. Names,
 * versions, `local_path`, the navigation instruction and its template, keyword limits and docset lookup.
 * Pure: no I/O, so both sides answer the same thing for the same configuration.
 * Spec: specs/knowledge-docsets.md.
 */
import { asFolder, joinPath } from "./docsets-path.js";
import { DomainError } from "./errors.js";

/** REQ-1 / REQ-6: the default template, word for word from the spec (DESIGN: single braces kept). */
export const DEFAULT_TEMPLATE =
  "Search for '{keywords}' in folder {local_path}. Use your normal text search tools to do this. If the search results don't help you, try to find '{generalized_keywords}'. If this still doesn't help, ask the user to rephrase it.";

/** REQ-5: where docsets live when `docs_root` is not set (the companion resolves it like a relative root). */
export const DEFAULT_DOCS_ROOT = ".knowledge/docs";

/** DESIGN data model: `[a-z0-9][a-z0-9._-]*`. */
export const DOCSET_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;
export const MAX_DOCSET_NAME_LENGTH = 100;
/** A version becomes part of a folder name: no separators, no `..`, nothing a shell would trip on. */
export const DOCSET_VERSION_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;
export const MAX_DOCSET_VERSION_LENGTH = 100;

/** REQ-7: "reasonable size limit" for keyword arrays, and for each keyword. */
export const MAX_KEYWORDS = 20;
export const MAX_KEYWORD_LENGTH = 100;

/** The template variables of REQ-6; anything else in braces is left as written. */
export const TEMPLATE_VARIABLES = [
  "keywords",
  "generalized_keywords",
  "local_path",
  "docset",
  "version",
] as const;
export type TemplateVariable = (typeof TEMPLATE_VARIABLES)[number];

/** Why `name` is not a valid docset name, or `undefined` when it is (REQ-7). */
export function docsetNameProblem(name: string): string | undefined {
  if (name.length === 0) return "is empty; a docset name is lowercase letters and digits, e.g. react";
  if (name.length > MAX_DOCSET_NAME_LENGTH) {
    return `is ${name.length} characters long; at most ${MAX_DOCSET_NAME_LENGTH} are allowed`;
  }
  if (DOCSET_NAME_PATTERN.test(name)) return undefined;
  const lower = name.toLowerCase().trim();
  const hint = DOCSET_NAME_PATTERN.test(lower) ? ` (did you mean "${lower}"?)` : "";
  return `"${name}" has invalid characters: use lowercase letters, digits, '.', '_' and '-', starting with a letter or digit${hint}`;
}

/** Why `version` cannot be a docset version, or `undefined` (it becomes part of `{name}-{version}/`). */
export function docsetVersionProblem(version: string): string | undefined {
  if (version.length === 0) return 'is empty; give the documented version, e.g. "18.2"';
  if (version.length > MAX_DOCSET_VERSION_LENGTH) {
    return `is ${version.length} characters long; at most ${MAX_DOCSET_VERSION_LENGTH} are allowed`;
  }
  if (!DOCSET_VERSION_PATTERN.test(version) || version.includes("..")) {
    return `"${version}" has invalid characters: use letters, digits, '.', '_', '+' and '-' (no slashes or spaces), e.g. "18.2"`;
  }
  return undefined;
}

/** REQ-2 / REQ-5: `{docs_root}/{name}-{version}/`, normalized, forward slashes. */
export function docsetLocalPath(docsRoot: string, name: string, version: string): string {
  return asFolder(joinPath(docsRoot, `${name}-${version}`));
}

/** REQ-6: keywords are joined with comma and space. */
export function joinKeywords(keywords: readonly string[]): string {
  return keywords.join(", ");
}

/** A template split once into literal text and variable slots, so rendering is one pass with no regex. */
export interface CompiledTemplate {
  source: string;
  parts: readonly (string | { variable: TemplateVariable })[];
}

const VARIABLE_RE = new RegExp(`\\{(${TEMPLATE_VARIABLES.join("|")})\\}`, "g");

export function compileTemplate(source: string): CompiledTemplate {
  const parts: (string | { variable: TemplateVariable })[] = [];
  let last = 0;
  for (const match of source.matchAll(VARIABLE_RE)) {
    if (match.index > last) parts.push(source.slice(last, match.index));
    parts.push({ variable: match[1] as TemplateVariable });
    last = match.index + match[0].length;
  }
  if (last < source.length) parts.push(source.slice(last));
  return { source, parts };
}

/**
 * REQ-6: substitutes the five variables in a single pass (a substituted value that itself contains
 * `{version}` is not expanded again); unknown variables stay as written.
 */
export function renderTemplate(
  template: CompiledTemplate,
  values: Readonly<Record<TemplateVariable, string>>,
): string {
  let out = "";
  for (const part of template.parts) out += typeof part === "string" ? part : values[part.variable];
  return out;
}

/** One configured docset, ready to answer (template compiled, `local_path` computed). */
export interface Docset {
  name: string;
  version: string;
  aliases: readonly string[];
  description?: string;
  /** The docset's own template, when it has one (REQ-6). */
  template?: string;
  local_path: string;
  compiled: CompiledTemplate;
}

export interface DocsetDefinition {
  name: string;
  version: string;
  aliases?: readonly string[];
  description?: string;
  template?: string;
}

/** What `list_docsets` returns for one docset (REQ-2). */
export interface DocsetSummary {
  name: string;
  version: string;
  aliases: string[];
  local_path: string;
}

/** The docsets of one configuration (or workspace) with lookup by name or alias. */
export class DocsetCatalog {
  readonly docsets: readonly Docset[];
  /** REQ-2's answer, built once per load so `list_docsets` allocates nothing per call (REQ-9). */
  readonly summaries: readonly DocsetSummary[];
  private readonly byKey = new Map<string, Docset>();

  /**
   * Definitions must already be valid (names, versions, no name or alias used twice); the config
   * parser and the hosted repository check that and report it in their own terms.
   */
  constructor(
    definitions: readonly DocsetDefinition[],
    docsRoot: string,
    defaultTemplate: string = DEFAULT_TEMPLATE,
  ) {
    const fallback = compileTemplate(defaultTemplate);
    this.docsets = definitions.map((d) => {
      const docset: Docset = {
        name: d.name,
        version: d.version,
        aliases: [...(d.aliases ?? [])],
        local_path: docsetLocalPath(docsRoot, d.name, d.version),
        compiled: d.template === undefined ? fallback : compileTemplate(d.template),
        ...(d.description === undefined ? {} : { description: d.description }),
        ...(d.template === undefined ? {} : { template: d.template }),
      };
      return docset;
    });
    for (const docset of this.docsets) {
      for (const key of [docset.name, ...docset.aliases])
        if (!this.byKey.has(key)) this.byKey.set(key, docset);
    }
    this.summaries = this.docsets.map((d) =>
      Object.freeze({ name: d.name, version: d.version, aliases: [...d.aliases], local_path: d.local_path }),
    );
  }

  /** The docset whose name or alias is `key` (REQ-1: `docset` matches a name or an alias). */
  find(key: string): Docset | undefined {
    return this.byKey.get(key);
  }

  /** The docset for `key`, or a not-found error that lists what is available (REQ-1, REQ-7). */
  get(key: string): Docset {
    const docset = this.byKey.get(key);
    if (docset) return docset;
    throw unknownDocsetError(key, this.docsets);
  }
}

export interface NameConflict {
  /** Index of the definition whose name or alias is already taken. */
  index: number;
  key: string;
  role: "name" | "alias";
  /** Index of the definition that had it first. */
  ownerIndex: number;
}

/** Names and aliases that would pick two docsets; each must pick exactly one (the config and the hosted store). */
export function findNameConflicts(
  definitions: readonly Pick<DocsetDefinition, "name" | "aliases">[],
): NameConflict[] {
  const owner = new Map<string, number>();
  const conflicts: NameConflict[] = [];
  definitions.forEach((d, index) => {
    for (const key of [d.name, ...(d.aliases ?? [])]) {
      const ownerIndex = owner.get(key);
      if (ownerIndex === undefined) owner.set(key, index);
      else if (ownerIndex !== index)
        conflicts.push({ index, key, role: key === d.name ? "name" : "alias", ownerIndex });
    }
  });
  return conflicts;
}

export function nameConflictMessage(
  conflict: NameConflict,
  definitions: readonly Pick<DocsetDefinition, "name" | "version">[],
): string {
  const d = definitions[conflict.index] as Pick<DocsetDefinition, "name" | "version">;
  const other = definitions[conflict.ownerIndex] as Pick<DocsetDefinition, "name" | "version">;
  return `"${conflict.key}" (the ${conflict.role} of ${d.name} ${d.version}) is already used by ${other.name} ${other.version}: every name and alias must pick one docset, so rename one of them (e.g. ${d.name}-${d.version.split(".")[0]})`;
}

/** "react (aliases: reactjs), vue" — how available docsets are named in errors. */
export function describeAvailable(docsets: readonly Pick<Docset, "name" | "aliases">[]): string {
  return docsets
    .map((d) => (d.aliases.length > 0 ? `${d.name} (aliases: ${d.aliases.join(", ")})` : d.name))
    .join(", ");
}

export function unknownDocsetError(
  key: string,
  docsets: readonly Pick<Docset, "name" | "aliases">[],
): DomainError {
  const available = docsets.map((d) => ({ name: d.name, aliases: [...d.aliases] }));
  const message =
    docsets.length === 0
      ? `Unknown docset "${key}": no docsets are configured. Add one under \`docsets:\` (name and version), then call list_docsets.`
      : `Unknown docset "${key}". Available docsets: ${describeAvailable(docsets)}. Call search_docs again with one of these names or aliases.`;
  return new DomainError("not_found", message, { reference_id: key, available });
}

/** REQ-1: the navigation instruction for a docset and the model's keywords. */
export function navigationInstruction(
  docset: Docset,
  keywords: readonly string[],
  generalizedKeywords: readonly string[],
): string {
  return renderTemplate(docset.compiled, {
    keywords: joinKeywords(keywords),
    generalized_keywords: joinKeywords(generalizedKeywords),
    local_path: docset.local_path,
    docset: docset.name,
    version: docset.version,
  });
}

/**
 * Builds `.ixchel/` repositories in temp dirs for the ixchel tests: real files, written as a user would.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface EntitySpec {
  id: string;
  type?: string;
  title?: string;
  tags?: string[];
  /** Extra frontmatter lines, verbatim (links, status…). */
  extra?: string;
  body?: string;
  /** Path relative to `.ixchel/`; default: the kind folder of the id's prefix. */
  path?: string;
}

const FOLDERS: Record<string, string> = {
  dec: "decisions",
  iss: "issues",
  idea: "ideas",
  rpt: "reports",
  src: "sources",
  cite: "citations",
  agt: "agents",
  ses: "sessions",
};
const TYPES: Record<string, string> = {
  dec: "decision",
  iss: "issue",
  idea: "idea",
  rpt: "report",
  src: "source",
  cite: "citation",
  agt: "agent",
  ses: "session",
};

export function entityText(spec: EntitySpec): string {
  const prefix = spec.id.split("-")[0] as string;
  const lines = [
    "---",
    `id: ${spec.id}`,
    `type: ${spec.type ?? TYPES[prefix]}`,
    `title: ${spec.title ?? spec.id}`,
  ];
  lines.push(`tags: [${(spec.tags ?? []).join(", ")}]`);
  if (spec.extra) lines.push(spec.extra.trimEnd());
  lines.push("---", "", spec.body ?? `Body of ${spec.id}.`, "");
  return lines.join("\n");
}

export function entityPath(spec: EntitySpec): string {
  return spec.path ?? `${FOLDERS[spec.id.split("-")[0] as string]}/${spec.id}.md`;
}

/** Writes a file under `<root>/.ixchel/`. */
export function writeIxchel(root: string, rel: string, text: string | Uint8Array): string {
  const path = join(root, ".ixchel", rel);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

export function writeEntity(root: string, spec: EntitySpec): string {
  return writeIxchel(root, entityPath(spec), entityText(spec));
}

/** A small graph with every edge case the tools must survive. */
export function writeSampleGraph(root: string): void {
  writeEntity(root, {
    id: "dec-0000a1",
    title: "Use libSQL for storage",
    tags: ["storage", "database"],
    extra:
      "status: accepted\nrelates_to: iss-0000b1\ndepends_on:\n  - {id: iss-0000b2, type: issue}\n  - {id: src-0000c1, type: source}\nsupersedes: [dec-0000ff]",
    body: "# Why\n\nWe need an embedded database that replicates to the edge.\n",
  });
  writeEntity(root, {
    id: "iss-0000b1",
    title: "Migrations fail on Workers",
    tags: ["database", "workers"],
    body: "The drizzle migrator reads files, which a Worker cannot do.",
  });
  writeEntity(root, {
    id: "iss-0000b2",
    title: "Busy errors lose writes",
    tags: ["database"],
    extra: "blocks: [dec-0000a1]",
    body: "After SQLITE_BUSY the embedded connection may drop later writes.",
  });
  writeEntity(root, {
    id: "src-0000c1",
    title: "libsql-client-ts issue 352",
    tags: [],
    body: "Upstream report.",
  });
  writeEntity(root, { id: "idea-0000d1", title: "Vector search over notes", tags: ["Search", "embeddings"] });
}

/**
 * The mapping between reqlix markdown and the hosted interchange document (docs/interchange.md, "Bridge"):
 *
 * - category (`general.md`) → epic: title = the category name, external id = the category prefix (`G`);
 * - chapter (`# Get Instructions`) → user story in that epic: title = the chapter name, external id =
 *   `{category prefix}.{chapter prefix}` (`G.GI`);
 * - requirement (`## G.GI.3: Title`) → requirement in that story: title = title, description = the body
 *   without reqlix's `<!-- rev: N -->` line, external id = the index (`G.GI.3`).
 *
 * Only the requirement's title and text travel both ways; everything else (status, priority, type,
 * assignee, relationships, comments) is the hosted side's and is sent back unchanged. Names of epics and
 * stories follow the files. A requirement that is Obsolete in the workspace counts as absent.
 *
 * Only the interchange document's types are imported (core/interchange/document.ts): the companion bundle
 * stays free of its schemas (startup time), and the server validates what it receives.
 */
import { createHash } from "node:crypto";
import type { RequirementStatus } from "../../core/domain.js";
import type { InterchangeDocumentInput } from "../../core/interchange/document.js";
import { normalizeBody } from "../reqlix/markdown.js";

type DocumentInput = InterchangeDocumentInput;
export type EpicDoc = NonNullable<DocumentInput["epics"]>[number];
export type StoryDoc = NonNullable<DocumentInput["user_stories"]>[number];
export type RequirementDoc = NonNullable<DocumentInput["requirements"]>[number];

/** An interchange document as the bridge reads (export) and writes (import) it: the lists it uses present. */
export type BridgeDocument = DocumentInput & {
  epics: EpicDoc[];
  user_stories: StoryDoc[];
  requirements: RequirementDoc[];
};

/** The hash of an item that does not exist on a side (never created, deleted, or Obsolete hosted). */
export const ABSENT = "absent";

/** Type and status a requirement created by a push gets: reviewed in the workspace before it is Active. */
export const NEW_REQUIREMENT_TYPE = "Functional";
export const NEW_REQUIREMENT_STATUS = "Draft" satisfies RequirementStatus;
export const OBSOLETE = "Obsolete" satisfies RequirementStatus;

/** What both sides compare: title and text, the text normalized as the reqlix tools exchange it. */
export function contentHash(title: string, text: string): string {
  return createHash("sha256")
    .update(JSON.stringify([title, normalizeBody(text)]))
    .digest("hex");
}

export function hostedHash(r: RequirementDoc | undefined): string {
  if (!r || r.status === OBSOLETE) return ABSENT;
  return contentHash(r.title, r.description ?? "");
}

export function sameId(a: string | null | undefined, b: string | null | undefined): boolean {
  return typeof a === "string" && typeof b === "string" && a.toUpperCase() === b.toUpperCase();
}

/**
 * Interchange document → ReqIF 1.2 XML, written as it goes: a generator of text chunks of about 64 KiB, so
 * the caller streams them out and no whole-file string is ever built (docs/interchange.md, "ReqIF").
 *
 * Layout: one SPECIFICATION per epic whose hierarchy is epic object → user story objects → requirement and
 * acceptance-criterion objects; each kind has its own SPEC-OBJECT-TYPE; each relationship type a
 * SPEC-RELATION-TYPE. IDENTIFIERs derive from reference ids, so exporting the same data twice gives the
 * same file but for the header's CREATION-TIME and LAST-CHANGE.
 */
import { ENTITY_STATUSES, REQUIREMENT_STATUSES } from "../../domain.js";
import { SEED_RELATIONSHIP_TYPES, SEED_REQUIREMENT_TYPES } from "../../seeds.js";
import type { InterchangeDocument } from "../document.js";
import {
  attributeId,
  DATATYPE_IDS,
  entityId,
  enumValueId,
  FIELD_NAMES,
  type Field,
  HEADER_ID,
  hierarchyId,
  KIND_FIELDS,
  KIND_NAMES,
  OBJECT_KINDS,
  type ObjectKind,
  objectTypeId,
  PRIORITY_NAMES,
  REQIF_NAMESPACE,
  relationId,
  relationTypeId,
  SPECIFICATION_TYPE_ID,
  specificationId,
  XHTML_NAMESPACE,
} from "./reqif-vocabulary.js";

export interface ReqifWriteOptions {
  /** CREATION-TIME, and LAST-CHANGE where an entity has no `updated_at`. */
  now: string;
  /** The header's TITLE. */
  title?: string;
}

/** Characters XML 1.0 cannot carry, even as references; they are written as U+FFFD (JSON keeps them). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xmlText(text: string): string {
  return text
    .replace(NOT_XML, "\uFFFD")
    .replace(/[&<>\r]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&#13;"));
}

export function xmlAttr(text: string): string {
  return text.replace(NOT_XML, "\uFFFD").replace(/[&<>"\t\n\r]/g, (c) => {
    if (c === "&") return "&amp;";
    if (c === "<") return "&lt;";
    if (c === ">") return "&gt;";
    if (c === '"') return "&quot;";
    // Attribute-value normalisation would turn a literal tab or line break into a space.
    return `&#${c.charCodeAt(0)};`;
  });
}

/** A description as XHTML: one `xhtml:div`, line breaks as `xhtml:br`, so it reads back exactly. */
export function xhtmlDiv(text: string): string {
  if (text === "") return "<xhtml:div/>";
  return `<xhtml:div>${text.split("\n").map(xmlText).join("<xhtml:br/>")}</xhtml:div>`;
}

type Values = Partial<Record<Field, string | undefined>>;

interface Entity {
  reference_id?: string | undefined;
  external_id?: string | null | undefined;
  attributes?: Record<string, unknown> | null | undefined;
  title: string;
  description: string;
  updated_at?: string | undefined;
}

/** Buffers small strings into chunks of about 64 KiB. */
class Chunker {
  private parts: string[] = [];
  private size = 0;
  push(s: string): string | undefined {
    this.parts.push(s);
    this.size += s.length;
    if (this.size < 65_536) return undefined;
    return this.flush();
  }
  flush(): string {
    const out = this.parts.join("");
    this.parts = [];
    this.size = 0;
    return out;
  }
}

const enumId = {
  workStatus: (s: string) => enumValueId(DATATYPE_IDS.workStatus, s),
  requirementStatus: (s: string) => enumValueId(DATATYPE_IDS.requirementStatus, s),
  priority: (p: string) => enumValueId(DATATYPE_IDS.priority, p),
  requirementType: (t: string) => enumValueId(DATATYPE_IDS.requirementType, t),
};

function enumerationXml(
  id: string,
  name: string,
  values: { name: string; desc?: string; key: number }[],
  now: string,
) {
  const items = values
    .map(
      (v) =>
        `<ENUM-VALUE IDENTIFIER="${xmlAttr(enumValueId(id, v.name))}" LAST-CHANGE="${now}" LONG-NAME="${xmlAttr(v.name)}"${
          v.desc ? ` DESC="${xmlAttr(v.desc)}"` : ""
        }><PROPERTIES><EMBEDDED-VALUE KEY="${v.key}" OTHER-CONTENT=""/></PROPERTIES></ENUM-VALUE>`,
    )
    .join("\n");
  return `<DATATYPE-DEFINITION-ENUMERATION IDENTIFIER="${id}" LAST-CHANGE="${now}" LONG-NAME="${name}">\n<SPECIFIED-VALUES>\n${items}\n</SPECIFIED-VALUES>\n</DATATYPE-DEFINITION-ENUMERATION>`;
}

function attributeDefinitionXml(kind: ObjectKind, field: Field, now: string): string {
  const id = attributeId(kind, field);
  const head = (t: string) =>
    `<ATTRIBUTE-DEFINITION-${t} IDENTIFIER="${id}" LAST-CHANGE="${now}" LONG-NAME="${FIELD_NAMES[field]}"`;
  const typed = (t: string, datatype: string, extra = "") =>
    `${head(t)}${extra}><TYPE><DATATYPE-DEFINITION-${t}-REF>${datatype}</DATATYPE-DEFINITION-${t}-REF></TYPE></ATTRIBUTE-DEFINITION-${t}>`;
  if (field === "text") return typed("XHTML", DATATYPE_IDS.xhtml);
  if (field === "status") {
    const datatype = kind === "requirement" ? DATATYPE_IDS.requirementStatus : DATATYPE_IDS.workStatus;
    return typed("ENUMERATION", datatype, ' MULTI-VALUED="false"');
  }
  if (field === "priority") return typed("ENUMERATION", DATATYPE_IDS.priority, ' MULTI-VALUED="false"');
  if (field === "type") return typed("ENUMERATION", DATATYPE_IDS.requirementType, ' MULTI-VALUED="false"');
  return typed("STRING", DATATYPE_IDS.string);
}

function valueXml(kind: ObjectKind, field: Field, value: string): string {
  const ref = (t: string) =>
    `<DEFINITION><ATTRIBUTE-DEFINITION-${t}-REF>${attributeId(kind, field)}</ATTRIBUTE-DEFINITION-${t}-REF></DEFINITION>`;
  if (field === "text") {
    return `<ATTRIBUTE-VALUE-XHTML>${ref("XHTML")}<THE-VALUE>${xhtmlDiv(value)}</THE-VALUE></ATTRIBUTE-VALUE-XHTML>`;
  }
  if (field === "status" || field === "priority" || field === "type") {
    return `<ATTRIBUTE-VALUE-ENUMERATION>${ref("ENUMERATION")}<VALUES><ENUM-VALUE-REF>${xmlText(value)}</ENUM-VALUE-REF></VALUES></ATTRIBUTE-VALUE-ENUMERATION>`;
  }
  return `<ATTRIBUTE-VALUE-STRING THE-VALUE="${xmlAttr(value)}">${ref("STRING")}</ATTRIBUTE-VALUE-STRING>`;
}

function objectXml(kind: ObjectKind, e: Entity, values: Values, now: string): string {
  const ref = e.reference_id ?? "";
  const all: Values = {
    title: e.title,
    text: e.description,
    "reference-id": ref,
    ...(e.external_id ? { "external-id": e.external_id } : {}),
    ...(e.attributes && Object.keys(e.attributes).length > 0
      ? { attributes: JSON.stringify(e.attributes) }
      : {}),
    ...values,
  };
  const parts = KIND_FIELDS[kind].flatMap((f) => {
    const v = all[f];
    return v === undefined ? [] : [valueXml(kind, f, v)];
  });
  return `<SPEC-OBJECT IDENTIFIER="${xmlAttr(identifierOf(e))}" LAST-CHANGE="${e.updated_at ?? now}" LONG-NAME="${xmlAttr(e.title)}">\n<VALUES>\n${parts.join("\n")}\n</VALUES>\n<TYPE><SPEC-OBJECT-TYPE-REF>${objectTypeId(kind)}</SPEC-OBJECT-TYPE-REF></TYPE>\n</SPEC-OBJECT>\n`;
}

/**
 * An entity's IDENTIFIER: derived from its reference id; an item without one (a document not read from a
 * workspace) is named by its external id.
 */
function identifierOf(e: {
  reference_id?: string | undefined;
  external_id?: string | null | undefined;
}): string {
  return e.reference_id ? entityId(e.reference_id) : (e.external_id ?? "");
}

function hierarchyOpen(identifier: string, now: string): string {
  return `<SPEC-HIERARCHY IDENTIFIER="${xmlAttr(hierarchyId(identifier))}" LAST-CHANGE="${now}"><OBJECT><SPEC-OBJECT-REF>${xmlText(identifier)}</SPEC-OBJECT-REF></OBJECT>`;
}

/** Groups items by a parent key, keeping document order; holds indexes only. */
function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  items.forEach((item, i) => {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(i);
    else out.set(k, [i]);
  });
  return out;
}

export function* writeReqif(doc: InterchangeDocument, options: ReqifWriteOptions): Generator<string> {
  const now = options.now;
  const out = new Chunker();
  const emit = function* (s: string) {
    const chunk = out.push(s);
    if (chunk !== undefined) yield chunk;
  };

  // Every name a value refers to must be an ENUM-VALUE: the document's types plus any used but not listed.
  const requirementTypes = new Map<string, string>();
  for (const t of doc.requirement_types.length > 0 ? doc.requirement_types : SEED_REQUIREMENT_TYPES) {
    requirementTypes.set(t.name, t.description);
  }
  for (const r of doc.requirements) if (!requirementTypes.has(r.type)) requirementTypes.set(r.type, "");
  const relationTypes = new Map<string, string>();
  for (const t of doc.relationship_types.length > 0 ? doc.relationship_types : SEED_RELATIONSHIP_TYPES) {
    relationTypes.set(t.name, t.description);
  }
  for (const r of doc.relationships) if (!relationTypes.has(r.type)) relationTypes.set(r.type, "");

  const title = options.title ?? (doc.workspace ? `reqlix export of ${doc.workspace.name}` : "reqlix export");
  yield* emit(
    `<?xml version="1.0" encoding="UTF-8"?>\n<REQ-IF xmlns="${REQIF_NAMESPACE}" xmlns:xhtml="${XHTML_NAMESPACE}">\n<THE-HEADER>\n<REQ-IF-HEADER IDENTIFIER="${HEADER_ID}">\n<CREATION-TIME>${now}</CREATION-TIME>\n<REQ-IF-TOOL-ID>reqlix</REQ-IF-TOOL-ID>\n<REQ-IF-VERSION>1.0</REQ-IF-VERSION>\n<SOURCE-TOOL-ID>reqlix</SOURCE-TOOL-ID>\n<TITLE>${xmlText(title)}</TITLE>\n</REQ-IF-HEADER>\n</THE-HEADER>\n<CORE-CONTENT>\n<REQ-IF-CONTENT>\n`,
  );

  yield* emit(
    [
      "<DATATYPES>",
      `<DATATYPE-DEFINITION-STRING IDENTIFIER="${DATATYPE_IDS.string}" LAST-CHANGE="${now}" LONG-NAME="reqlix string" MAX-LENGTH="1000000"/>`,
      `<DATATYPE-DEFINITION-XHTML IDENTIFIER="${DATATYPE_IDS.xhtml}" LAST-CHANGE="${now}" LONG-NAME="reqlix XHTML"/>`,
      enumerationXml(
        DATATYPE_IDS.workStatus,
        "reqlix status",
        ENTITY_STATUSES.map((name, i) => ({ name, key: i + 1 })),
        now,
      ),
      enumerationXml(
        DATATYPE_IDS.requirementStatus,
        "reqlix requirement status",
        REQUIREMENT_STATUSES.map((name, i) => ({ name, key: i + 1 })),
        now,
      ),
      enumerationXml(
        DATATYPE_IDS.priority,
        "reqlix priority",
        PRIORITY_NAMES.map((name, i) => ({ name, key: i + 1 })),
        now,
      ),
      enumerationXml(
        DATATYPE_IDS.requirementType,
        "reqlix requirement type",
        [...requirementTypes].map(([name, desc], i) => ({ name, desc, key: i + 1 })),
        now,
      ),
      "</DATATYPES>\n<SPEC-TYPES>",
      ...OBJECT_KINDS.map(
        (kind) =>
          `<SPEC-OBJECT-TYPE IDENTIFIER="${objectTypeId(kind)}" LAST-CHANGE="${now}" LONG-NAME="${KIND_NAMES[kind]}">\n<SPEC-ATTRIBUTES>\n${KIND_FIELDS[
            kind
          ]
            .map((f) => attributeDefinitionXml(kind, f, now))
            .join("\n")}\n</SPEC-ATTRIBUTES>\n</SPEC-OBJECT-TYPE>`,
      ),
      `<SPECIFICATION-TYPE IDENTIFIER="${SPECIFICATION_TYPE_ID}" LAST-CHANGE="${now}" LONG-NAME="reqlix Epic specification"/>`,
      ...[...relationTypes].map(
        ([name, desc]) =>
          `<SPEC-RELATION-TYPE IDENTIFIER="${xmlAttr(relationTypeId(name))}" LAST-CHANGE="${now}" LONG-NAME="${xmlAttr(name)}"${desc ? ` DESC="${xmlAttr(desc)}"` : ""}/>`,
      ),
      "</SPEC-TYPES>\n<SPEC-OBJECTS>\n",
    ].join("\n"),
  );

  const priority = (p: number) => enumId.priority(PRIORITY_NAMES[p - 1] ?? "Medium");
  for (const e of doc.epics) {
    yield* emit(
      objectXml("epic", e, { status: enumId.workStatus(e.status), priority: priority(e.priority) }, now),
    );
  }
  for (const s of doc.user_stories) {
    yield* emit(
      objectXml(
        "user-story",
        s,
        { status: enumId.workStatus(s.status), priority: priority(s.priority) },
        now,
      ),
    );
  }
  for (const r of doc.requirements) {
    const values = {
      status: enumId.requirementStatus(r.status),
      priority: priority(r.priority),
      type: enumId.requirementType(r.type),
    };
    yield* emit(objectXml("requirement", r, values, now));
  }
  for (const c of doc.acceptance_criteria) yield* emit(objectXml("acceptance-criterion", c, {}, now));
  yield* emit("</SPEC-OBJECTS>\n<SPEC-RELATIONS>\n");

  // Parents and relationship ends name reference ids, or external ids of items without one.
  const keys = (e: Entity) => [e.reference_id, e.external_id].filter((k): k is string => !!k);
  const epicIds = new Map<string, string>();
  for (const e of doc.epics) for (const k of keys(e)) epicIds.set(k, identifierOf(e));
  const storyIds = new Map<string, string>();
  for (const s of doc.user_stories) for (const k of keys(s)) storyIds.set(k, identifierOf(s));
  const requirementIds = new Map<string, string>();
  for (const r of doc.requirements) for (const k of keys(r)) requirementIds.set(k, identifierOf(r));
  const endId = (end: string) => requirementIds.get(end) ?? entityId(end);
  for (const rel of doc.relationships) {
    const source = endId(rel.source);
    const target = endId(rel.target);
    yield* emit(
      `<SPEC-RELATION IDENTIFIER="${xmlAttr(relationId(source, rel.type, target))}" LAST-CHANGE="${rel.created_at ?? now}"><SOURCE><SPEC-OBJECT-REF>${xmlText(
        source,
      )}</SPEC-OBJECT-REF></SOURCE><TARGET><SPEC-OBJECT-REF>${xmlText(target)}</SPEC-OBJECT-REF></TARGET><TYPE><SPEC-RELATION-TYPE-REF>${xmlText(
        relationTypeId(rel.type),
      )}</SPEC-RELATION-TYPE-REF></TYPE></SPEC-RELATION>\n`,
    );
  }
  yield* emit("</SPEC-RELATIONS>\n<SPECIFICATIONS>\n");

  const storiesByEpic = groupBy(doc.user_stories, (s) => epicIds.get(s.epic) ?? s.epic);
  const requirementsByStory = groupBy(doc.requirements, (r) => storyIds.get(r.user_story) ?? r.user_story);
  const criteriaByStory = groupBy(doc.acceptance_criteria, (c) => storyIds.get(c.user_story) ?? c.user_story);

  const leaf = (id: string) => `${hierarchyOpen(id, now)}</SPEC-HIERARCHY>\n`;
  for (const epic of doc.epics) {
    const id = identifierOf(epic);
    yield* emit(
      `<SPECIFICATION IDENTIFIER="${xmlAttr(specificationId(id))}" LAST-CHANGE="${epic.updated_at ?? now}" LONG-NAME="${xmlAttr(
        epic.title,
      )}">\n<TYPE><SPECIFICATION-TYPE-REF>${SPECIFICATION_TYPE_ID}</SPECIFICATION-TYPE-REF></TYPE>\n<CHILDREN>\n${hierarchyOpen(id, now)}\n`,
    );
    const stories = storiesByEpic.get(id) ?? [];
    if (stories.length > 0) yield* emit("<CHILDREN>\n");
    for (const si of stories) {
      const story = doc.user_stories[si];
      if (!story) continue;
      const sid = identifierOf(story);
      const inner = [
        ...(requirementsByStory.get(sid) ?? []).map((i) => doc.requirements[i]),
        ...(criteriaByStory.get(sid) ?? []).map((i) => doc.acceptance_criteria[i]),
      ].flatMap((e) => (e ? [identifierOf(e)] : []));
      if (inner.length === 0) {
        yield* emit(leaf(sid));
        continue;
      }
      yield* emit(`${hierarchyOpen(sid, now)}\n<CHILDREN>\n`);
      for (const r of inner) yield* emit(leaf(r));
      yield* emit("</CHILDREN>\n</SPEC-HIERARCHY>\n");
    }
    if (stories.length > 0) yield* emit("</CHILDREN>\n");
    yield* emit("</SPEC-HIERARCHY>\n</CHILDREN>\n</SPECIFICATION>\n");
  }
  yield* emit("</SPECIFICATIONS>\n</REQ-IF-CONTENT>\n</CORE-CONTENT>\n</REQ-IF>\n");
  yield out.flush();
}

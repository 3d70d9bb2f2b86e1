/**
 * An export source → ReqIF 1.2 XML, written as it is read, in chunks of about 64 KiB: no whole-file string
 * and no list of entities is ever built, only their identifiers for the hierarchy (docs/interchange.md,
 * "ReqIF").
 *
 * Layout: one SPECIFICATION per epic whose hierarchy is epic object → user story objects → requirement and
 * acceptance-criterion objects; each kind has its own SPEC-OBJECT-TYPE; each relationship type a
 * SPEC-RELATION-TYPE. IDENTIFIERs derive from reference ids, so exporting the same data twice gives the
 * same file but for the header's CREATION-TIME and LAST-CHANGE.
 */
import { ENTITY_STATUSES, REQUIREMENT_STATUSES } from "../../domain.js";
import type { ExportHeader, ExportSource, ExportWriter } from "../formats.js";
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

/** Characters XML 1.0 cannot carry, even as references; they are written as U+FFFD (JSON keeps them). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * Characters `xmlText` and `xmlAttr` have work for (escapes, XML-less characters, and surrogates, whose
 * pairing only the slow path checks); most text has none and is returned as it is. Exports of 100,000
 * requirements escape every title and description (bench/interchange.ts).
 */
const TEXT_WORK = /[^\t\n\u0020-\u0025\u0027-\u003b\u003d\u003f-\ud7ff\ue000-\ufffd]/;
const ATTR_WORK = /[^\u0020\u0021\u0023-\u0025\u0027-\u003b\u003d\u003f-\ud7ff\ue000-\ufffd]/;

export function xmlText(text: string): string {
  if (!TEXT_WORK.test(text)) return text;
  return text.replace(NOT_XML, "\uFFFD").replace(/[&<>\r]/g, textEscape);
}

/** The replacers, made once (not a closure per call: an export escapes a few hundred thousand texts). */
function textEscape(c: string): string {
  return c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&#13;";
}

function attrEscape(c: string): string {
  if (c === "&") return "&amp;";
  if (c === "<") return "&lt;";
  if (c === ">") return "&gt;";
  if (c === '"') return "&quot;";
  // Attribute-value normalisation would turn a literal tab or line break into a space.
  return `&#${c.charCodeAt(0)};`;
}

export function xmlAttr(text: string): string {
  if (!ATTR_WORK.test(text)) return text;
  return text.replace(NOT_XML, "\uFFFD").replace(/[&<>"\t\n\r]/g, attrEscape);
}

/** A description as XHTML: one `xhtml:div`, line breaks as `xhtml:br`, so it reads back exactly. */
export function xhtmlDiv(text: string): string {
  if (text === "") return "<xhtml:div/>";
  return `<xhtml:div>${xmlText(text).replaceAll("\n", "<xhtml:br/>")}</xhtml:div>`;
}

type Values = Partial<Record<Field, string | undefined>>;

interface Entity {
  reference_id?: string | undefined;
  external_id?: string | null | undefined;
  attributes?: Record<string, unknown> | null | undefined;
  title: string;
  description?: string | undefined;
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

/** The markup around an attribute value of `kind`'s `field`: built once per kind and field, not per object. */
interface ValueMarkup {
  open: string;
  close: string;
  /** How the value between them is written. */
  as: "xhtml" | "text" | "attr";
}

function valueMarkup(kind: ObjectKind, field: Field): ValueMarkup {
  const ref = (t: string) =>
    `<DEFINITION><ATTRIBUTE-DEFINITION-${t}-REF>${attributeId(kind, field)}</ATTRIBUTE-DEFINITION-${t}-REF></DEFINITION>`;
  if (field === "text") {
    return {
      open: `<ATTRIBUTE-VALUE-XHTML>${ref("XHTML")}<THE-VALUE>`,
      close: "</THE-VALUE></ATTRIBUTE-VALUE-XHTML>",
      as: "xhtml",
    };
  }
  if (field === "status" || field === "priority" || field === "type") {
    return {
      open: `<ATTRIBUTE-VALUE-ENUMERATION>${ref("ENUMERATION")}<VALUES><ENUM-VALUE-REF>`,
      close: "</ENUM-VALUE-REF></VALUES></ATTRIBUTE-VALUE-ENUMERATION>",
      as: "text",
    };
  }
  return {
    open: '<ATTRIBUTE-VALUE-STRING THE-VALUE="',
    close: `">${ref("STRING")}</ATTRIBUTE-VALUE-STRING>`,
    as: "attr",
  };
}

/** Per kind, its fields in order with their markup. */
const KIND_MARKUP = new Map<ObjectKind, { field: Field; markup: ValueMarkup }[]>(
  OBJECT_KINDS.map((kind) => [
    kind,
    KIND_FIELDS[kind].map((field) => ({ field, markup: valueMarkup(kind, field) })),
  ]),
);

function valueXml({ open, close, as }: ValueMarkup, value: string): string {
  const inner = as === "xhtml" ? xhtmlDiv(value) : as === "text" ? xmlText(value) : xmlAttr(value);
  return open + inner + close;
}

function objectXml(kind: ObjectKind, e: Entity, values: Values, now: string): string {
  const all: Values = {
    title: e.title,
    text: e.description ?? "",
    "reference-id": e.reference_id ?? "",
    ...(e.external_id ? { "external-id": e.external_id } : {}),
    ...(e.attributes && Object.keys(e.attributes).length > 0
      ? { attributes: JSON.stringify(e.attributes) }
      : {}),
    ...values,
  };
  let parts = "";
  for (const { field, markup } of KIND_MARKUP.get(kind) ?? []) {
    const v = all[field];
    if (v !== undefined) parts += `${parts === "" ? "" : "\n"}${valueXml(markup, v)}`;
  }
  return `<SPEC-OBJECT IDENTIFIER="${xmlAttr(identifierOf(e))}" LAST-CHANGE="${e.updated_at ?? now}" LONG-NAME="${xmlAttr(e.title)}">\n<VALUES>\n${parts}\n</VALUES>\n<TYPE><SPEC-OBJECT-TYPE-REF>${objectTypeId(kind)}</SPEC-OBJECT-TYPE-REF></TYPE>\n</SPEC-OBJECT>\n`;
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

/** Buffers the small strings of the export into chunks of about 64 KiB for `out`. */
function chunkedWriter(out: ExportWriter) {
  const chunker = new Chunker();
  return {
    async emit(s: string) {
      const chunk = chunker.push(s);
      if (chunk !== undefined) await out.write(chunk);
    },
    async end() {
      const rest = chunker.flush();
      if (rest !== "") await out.write(rest);
    },
  };
}

function headXml(header: ExportHeader, title: string): string {
  const now = header.exported_at;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>\n<REQ-IF xmlns="${REQIF_NAMESPACE}" xmlns:xhtml="${XHTML_NAMESPACE}">\n<THE-HEADER>\n<REQ-IF-HEADER IDENTIFIER="${HEADER_ID}">\n<CREATION-TIME>${now}</CREATION-TIME>\n<REQ-IF-TOOL-ID>reqlix</REQ-IF-TOOL-ID>\n<REQ-IF-VERSION>1.0</REQ-IF-VERSION>\n<SOURCE-TOOL-ID>reqlix</SOURCE-TOOL-ID>\n<TITLE>${xmlText(title)}</TITLE>\n</REQ-IF-HEADER>\n</THE-HEADER>\n<CORE-CONTENT>\n<REQ-IF-CONTENT>\n<DATATYPES>`,
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
      header.requirement_types.map((t, i) => ({ name: t.name, desc: t.description, key: i + 1 })),
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
    ...header.relationship_types.map(
      (t) =>
        `<SPEC-RELATION-TYPE IDENTIFIER="${xmlAttr(relationTypeId(t.name))}" LAST-CHANGE="${now}" LONG-NAME="${xmlAttr(t.name)}"${t.description ? ` DESC="${xmlAttr(t.description)}"` : ""}/>`,
    ),
    "</SPEC-TYPES>\n<SPEC-OBJECTS>\n",
  ].join("\n");
}

/** What the SPECIFICATIONS section needs of an epic: identifiers only, never text. */
interface EpicOutline {
  id: string;
  title: string;
  updatedAt: string | undefined;
  stories: string[];
}

/**
 * Writes `source` as ReqIF 1.2 to `out`. Each list is read once, in order, and its objects written as they
 * come (the whole-list queries are paged scans; one query per story would not scale); only identifiers
 * are kept, to write the hierarchy at the end. Relationships are written when both ends are in the export
 * (an epic's export keeps the links inside it).
 */
export async function exportReqif(source: ExportSource, out: ExportWriter): Promise<void> {
  const header = source.header;
  const now = header.exported_at;
  const w = chunkedWriter(out);
  const title =
    header.scope.kind === "epic"
      ? `reqlix export of ${header.scope.epic} from ${header.workspace.name}`
      : `reqlix export of ${header.workspace.name}`;
  await w.emit(headXml(header, title));

  const priority = (p: number | undefined) => enumId.priority(PRIORITY_NAMES[(p ?? 3) - 1] ?? "Medium");
  const outline: EpicOutline[] = [];
  const epicByKey = new Map<string, EpicOutline>();
  for await (const epic of source.epics()) {
    await w.emit(
      objectXml(
        "epic",
        epic,
        { status: enumId.workStatus(epic.status ?? "Backlog"), priority: priority(epic.priority) },
        now,
      ),
    );
    const entry: EpicOutline = {
      id: identifierOf(epic),
      title: epic.title,
      updatedAt: epic.updated_at,
      stories: [],
    };
    outline.push(entry);
    for (const key of [epic.reference_id, epic.external_id]) if (key) epicByKey.set(key, entry);
  }
  /** Story identifier → its children's identifiers, in order (requirements, then criteria). */
  const children = new Map<string, string[]>();
  const storyByKey = new Map<string, string>();
  for await (const story of source.userStories()) {
    await w.emit(
      objectXml(
        "user-story",
        story,
        { status: enumId.workStatus(story.status ?? "Backlog"), priority: priority(story.priority) },
        now,
      ),
    );
    const id = identifierOf(story);
    epicByKey.get(story.epic)?.stories.push(id);
    children.set(id, []);
    for (const key of [story.reference_id, story.external_id]) if (key) storyByKey.set(key, id);
  }
  const written = new Set<string>();
  for await (const r of source.requirements()) {
    const values = {
      status: enumId.requirementStatus(r.status ?? "Draft"),
      priority: priority(r.priority),
      type: enumId.requirementType(r.type),
    };
    await w.emit(objectXml("requirement", r, values, now));
    const story = storyByKey.get(r.user_story);
    if (story) children.get(story)?.push(identifierOf(r));
    if (r.reference_id) written.add(r.reference_id);
  }
  const criteria = new Map<string, string[]>();
  for await (const c of source.acceptanceCriteria()) {
    await w.emit(objectXml("acceptance-criterion", c, {}, now));
    const story = storyByKey.get(c.user_story);
    if (!story) continue;
    const list = criteria.get(story);
    if (list) list.push(identifierOf(c));
    else criteria.set(story, [identifierOf(c)]);
  }
  await w.emit("</SPEC-OBJECTS>\n<SPEC-RELATIONS>\n");

  for await (const rel of source.relationships()) {
    if (!written.has(rel.source) || !written.has(rel.target)) continue;
    const source = entityId(rel.source);
    const target = entityId(rel.target);
    await w.emit(
      `<SPEC-RELATION IDENTIFIER="${xmlAttr(relationId(rel.source, rel.type, rel.target))}" LAST-CHANGE="${rel.created_at ?? now}"><SOURCE><SPEC-OBJECT-REF>${xmlText(
        source,
      )}</SPEC-OBJECT-REF></SOURCE><TARGET><SPEC-OBJECT-REF>${xmlText(target)}</SPEC-OBJECT-REF></TARGET><TYPE><SPEC-RELATION-TYPE-REF>${xmlText(
        relationTypeId(rel.type),
      )}</SPEC-RELATION-TYPE-REF></TYPE></SPEC-RELATION>\n`,
    );
  }
  await w.emit("</SPEC-RELATIONS>\n<SPECIFICATIONS>\n");

  const leaf = (id: string) => `${hierarchyOpen(id, now)}</SPEC-HIERARCHY>\n`;
  for (const epic of outline) {
    await w.emit(
      `<SPECIFICATION IDENTIFIER="${xmlAttr(specificationId(epic.id))}" LAST-CHANGE="${epic.updatedAt ?? now}" LONG-NAME="${xmlAttr(
        epic.title,
      )}">\n<TYPE><SPECIFICATION-TYPE-REF>${SPECIFICATION_TYPE_ID}</SPECIFICATION-TYPE-REF></TYPE>\n<CHILDREN>\n${hierarchyOpen(epic.id, now)}\n`,
    );
    if (epic.stories.length > 0) await w.emit("<CHILDREN>\n");
    for (const story of epic.stories) {
      const inner = [...(children.get(story) ?? []), ...(criteria.get(story) ?? [])];
      if (inner.length === 0) {
        await w.emit(leaf(story));
        continue;
      }
      await w.emit(`${hierarchyOpen(story, now)}\n<CHILDREN>\n`);
      for (const child of inner) await w.emit(leaf(child));
      await w.emit("</CHILDREN>\n</SPEC-HIERARCHY>\n");
    }
    if (epic.stories.length > 0) await w.emit("</CHILDREN>\n");
    await w.emit("</SPEC-HIERARCHY>\n</CHILDREN>\n</SPECIFICATION>\n");
  }
  await w.emit("</SPECIFICATIONS>\n</REQ-IF-CONTENT>\n</CORE-CONTENT>\n</REQ-IF>\n");
  await w.end();
}

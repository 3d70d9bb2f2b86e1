/**
 * One spec object's values → reqlix fields plus an `attributes` object holding everything else, so nothing
 * of a foreign file is lost. reqlix's own attribute definitions (IDENTIFIER `reqlix-<kind>-<field>`) map
 * exactly; other tools' map by LONG-NAME through the aliases below, the first alias present winning.
 */
import type { Attributes } from "../document.js";
import type { RawObject, RawValue, ReqifContent, XhtmlValue } from "./reqif-content.js";
import { entityId, type Field, type ObjectKind, ownField, ownKind } from "./reqif-vocabulary.js";

/** Normalised LONG-NAMEs (lower case, letters and digits only, `ReqIF.` dropped) per field, best first. */
const ALIASES: Partial<Record<Field, string[]>> = {
  title: ["name", "title", "chaptername", "heading", "objectheading", "summary"],
  text: ["text", "description", "objecttext", "statement", "content"],
  status: ["status", "state"],
  priority: ["priority"],
};

const normalise = (name: string) =>
  name
    .replace(/^reqif\./i, "")
    .replace(/[^A-Za-z0-9]/g, "")
    .toLowerCase();

/** XHTML as kept in `attributes`: its text when that is all it holds, else the markup. */
const xhtmlJson = (v: XhtmlValue) => (v.plain ? v.text : v.xml);

/** A value as JSON for `attributes`. */
function jsonOf(value: RawValue, content: ReqifContent, multiValued: boolean): Attributes[string] {
  switch (value.kind) {
    case "XHTML":
      return value.xhtml ? xhtmlJson(value.xhtml) : null;
    case "ENUMERATION": {
      const names = (value.refs ?? []).map((r) => content.enumValues.get(r)?.longName ?? r);
      return multiValued || names.length !== 1 ? names : (names[0] ?? null);
    }
    case "INTEGER": {
      const n = Number(value.value);
      return Number.isSafeInteger(n) ? n : (value.value ?? null);
    }
    case "REAL": {
      const n = Number(value.value);
      return value.value !== undefined && Number.isFinite(n) ? n : (value.value ?? null);
    }
    case "BOOLEAN":
      return value.value === "true" || value.value === "1";
    default:
      return value.value ?? null;
  }
}

/** A value as one string for a reqlix field. */
function textOf(value: RawValue, content: ReqifContent): string | undefined {
  if (value.kind === "XHTML") return value.xhtml?.text;
  if (value.kind === "ENUMERATION") {
    const ref = value.refs?.[0];
    return ref === undefined ? undefined : (content.enumValues.get(ref)?.longName ?? ref);
  }
  return value.value;
}

export interface ObjectFields {
  /** Field values as text (enumerations by their LONG-NAME). */
  fields: Partial<Record<Field, string>>;
  attributes: Attributes;
}

/** The values of `object`, its type's DEFAULT-VALUEs filling the gaps, as fields and attributes. */
export function fieldsOf(object: RawObject, content: ReqifContent, own: boolean): ObjectFields {
  const values = [...object.values];
  const type = object.type ? content.specTypes.get(object.type) : undefined;
  for (const id of type?.attributes ?? []) {
    const def = content.attributeDefinitions.get(id);
    if (def?.defaultValue && !values.some((v) => v.definition === id)) {
      values.push({ ...def.defaultValue, definition: id });
    }
  }
  const fields: ObjectFields["fields"] = {};
  const attributes: Attributes = {};
  const candidates = new Map<Field, { rank: number; value: RawValue; name: string }>();
  const rest: { name: string; value: RawValue; multi: boolean }[] = [];
  for (const value of values) {
    const def = content.attributeDefinitions.get(value.definition);
    const name = def?.longName ?? value.definition;
    const mine = own ? ownField(value.definition) : undefined;
    if (mine) {
      candidates.set(mine.field, { rank: -1, value, name });
      continue;
    }
    let placed = false;
    if (!own) {
      const key = normalise(name);
      for (const [field, names] of Object.entries(ALIASES) as [Field, string[]][]) {
        const rank = names.indexOf(key);
        if (rank === -1) continue;
        const best = candidates.get(field);
        if (!best || rank < best.rank) {
          if (best) rest.push({ name: best.name, value: best.value, multi: false });
          candidates.set(field, { rank, value, name });
          placed = true;
        }
        break;
      }
    }
    if (!placed) rest.push({ name, value, multi: def?.multiValued ?? false });
  }
  for (const [field, { value, name }] of candidates) {
    const text = textOf(value, content);
    if (text !== undefined) fields[field] = text;
    // Rich text is rendered into the description and kept as it came.
    if (value.kind === "XHTML" && value.xhtml && !value.xhtml.plain) attributes[name] = value.xhtml.xml;
    if (value.original) attributes[`${name} (original)`] = xhtmlJson(value.original);
  }
  for (const { name, value, multi } of rest) {
    let key = name;
    for (let n = 2; key in attributes; n++) key = `${name} (${n})`;
    attributes[key] = jsonOf(value, content, multi);
    if (value.original) attributes[`${key} (original)`] = xhtmlJson(value.original);
  }
  return { fields, attributes };
}

const TITLE_MAX = 200;

/**
 * A spec object as the import needs it, made when the object has been read so its raw values can go:
 * title, description, ids, `attributes` (everything that is no reqlix field) and the enumerated fields
 * still as text (they are checked once the object's kind is known).
 */
export interface PreparedObject {
  id: string;
  /** Its SPEC-OBJECT-TYPE's IDENTIFIER. */
  type: string | undefined;
  /** The kind, for reqlix's own types. */
  kind: ObjectKind | undefined;
  reference_id: string | undefined;
  external_id: string | undefined;
  attributes: Attributes | undefined;
  title: string;
  description: string;
  /** The enumerated fields as text; `undefined` (shared) when the object has none. */
  status: string | undefined;
  priority: string | undefined;
  typeName: string | undefined;
}

function titleFrom(raw: string | undefined, object: RawObject, text: string, attrs: Attributes): string {
  let title = (raw ?? "").trim() || (object.longName ?? "").trim();
  if (!title)
    title =
      text
        .split("\n")
        .find((l) => l.trim() !== "")
        ?.trim() ?? "";
  if (!title) title = object.id;
  if (title.length > TITLE_MAX) {
    attrs["ReqIF.title"] = title;
    title = `${title.slice(0, TITLE_MAX - 1).trimEnd()}…`;
  }
  return title;
}

export function prepareObject(object: RawObject, content: ReqifContent): PreparedObject {
  const kind = ownKind(object.type);
  const own = kind !== undefined;
  const { fields, attributes } = fieldsOf(object, content, own);
  let attrs: Attributes = attributes;
  if (own && fields.attributes) {
    try {
      attrs = { ...(JSON.parse(fields.attributes) as Attributes), ...attributes };
    } catch {
      attrs["reqlix.Attributes"] = fields.attributes;
    }
  }
  const description = fields.text ?? "";
  const title = titleFrom(fields.title, object, description, attrs);
  if (!own) {
    if (object.longName !== undefined && object.longName !== title && !("ReqIF.title" in attrs)) {
      attrs["ReqIF.LONG-NAME"] = object.longName;
    }
    if (object.desc !== undefined) attrs["ReqIF.DESC"] = object.desc;
    if (object.lastChange !== undefined) attrs["ReqIF.LAST-CHANGE"] = object.lastChange;
    const type = object.type ? content.specTypes.get(object.type) : undefined;
    if (type) attrs["ReqIF.type"] = type.longName ?? type.id;
  }
  const reference = own ? fields["reference-id"] : undefined;
  // reqlix's own objects carry their external id as a value; the IDENTIFIER is derived, not an id elsewhere.
  const external = own
    ? (fields["external-id"] ?? (reference && object.id === entityId(reference) ? undefined : object.id))
    : object.id;
  // Every key in one literal: one hidden class for all prepared objects, their fields in the object itself
  // (keys added one by one spilled into a separate property array, ~4 MB over 46,000 objects).
  const prepared: PreparedObject = {
    id: object.id,
    type: object.type,
    kind,
    reference_id: reference || undefined,
    external_id: external || undefined,
    attributes: Object.keys(attrs).length > 0 ? attrs : undefined,
    title,
    description,
    status: fields.status,
    priority: fields.priority,
    typeName: fields.type,
  };
  return prepared;
}

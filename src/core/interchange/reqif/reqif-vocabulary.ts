/**
 * The identifiers and names reqlix writes into ReqIF, shared by the writer and the reader so that a file
 * reqlix wrote is read back exactly (docs/interchange.md, "ReqIF").
 */
export const REQIF_NAMESPACE = "http://www.omg.org/spec/ReqIF/20110401/reqif.xsd";
export const XHTML_NAMESPACE = "http://www.w3.org/1999/xhtml";

export const OBJECT_KINDS = ["epic", "user-story", "requirement", "acceptance-criterion"] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

export const FIELDS = [
  "title",
  "text",
  "status",
  "priority",
  "type",
  "reference-id",
  "external-id",
  "attributes",
] as const;
export type Field = (typeof FIELDS)[number];

/** Which fields each kind carries, in the order they are written. */
export const KIND_FIELDS: Record<ObjectKind, readonly Field[]> = {
  epic: ["title", "text", "status", "priority", "reference-id", "external-id", "attributes"],
  "user-story": ["title", "text", "status", "priority", "reference-id", "external-id", "attributes"],
  requirement: ["title", "text", "status", "priority", "type", "reference-id", "external-id", "attributes"],
  "acceptance-criterion": ["title", "text", "reference-id", "external-id", "attributes"],
};

export const KIND_NAMES: Record<ObjectKind, string> = {
  epic: "reqlix Epic",
  "user-story": "reqlix User Story",
  requirement: "reqlix Requirement",
  "acceptance-criterion": "reqlix Acceptance Criterion",
};

/**
 * LONG-NAMEs of the attribute definitions: the ReqIF Implementation Guide's names where one exists
 * (ReqIF.Name, ReqIF.Text, ReqIF.ForeignID), so DOORS, Polarion and StrictDoc show them as such.
 */
export const FIELD_NAMES: Record<Field, string> = {
  title: "ReqIF.Name",
  text: "ReqIF.Text",
  status: "Status",
  priority: "Priority",
  type: "Type",
  "reference-id": "ReqIF.ForeignID",
  "external-id": "reqlix.ExternalID",
  attributes: "reqlix.Attributes",
};

export const objectTypeId = (kind: ObjectKind) => `reqlix-type-${kind}`;
export const attributeId = (kind: ObjectKind, field: Field) => `reqlix-${kind}-${field}`;
export const SPECIFICATION_TYPE_ID = "reqlix-type-specification";
export const HEADER_ID = "reqlix-header";

export const DATATYPE_IDS = {
  string: "reqlix-datatype-string",
  xhtml: "reqlix-datatype-xhtml",
  workStatus: "reqlix-datatype-status",
  requirementStatus: "reqlix-datatype-requirement-status",
  priority: "reqlix-datatype-priority",
  requirementType: "reqlix-datatype-requirement-type",
} as const;

export const PRIORITY_NAMES = ["Critical", "High", "Medium", "Low"] as const;

/**
 * A name as a fragment of an xsd:ID: letters, digits, `_`, `.` and `-` stay; anything else becomes `_xHHHH_`
 * (and so does a `_` before an `x`, so no two names share a fragment): `In Progress` → `In_x0020_Progress`,
 * `depends_on` → `depends_on`.
 */
export function idFragment(name: string): string {
  let out = "";
  const chars = [...name];
  chars.forEach((ch, i) => {
    const keep = /[A-Za-z0-9.-]/.test(ch) || (ch === "_" && chars[i + 1] !== "x");
    out += keep ? ch : `_x${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}_`;
  });
  return out;
}

export const enumValueId = (datatype: string, name: string) => `${datatype}-${idFragment(name)}`;
export const relationTypeId = (name: string) => `reqlix-relation-type-${idFragment(name)}`;

/** The IDENTIFIER of an entity reqlix exports: derived from its reference id, so re-exports are stable. */
export const entityId = (referenceId: string) => `reqlix-${referenceId}`;
export const hierarchyId = (objectId: string) => `${objectId}-hierarchy`;
export const specificationId = (epicObjectId: string) => `${epicObjectId}-specification`;
export const relationId = (source: string, type: string, target: string) =>
  `reqlix-relation-${idFragment(source)}-${idFragment(type)}-${idFragment(target)}`;

const ATTRIBUTE_ID = new RegExp(`^reqlix-(${OBJECT_KINDS.join("|")})-(${FIELDS.join("|")})$`);

/** The reqlix field an attribute definition of ours stands for. */
export function ownField(definitionId: string): { kind: ObjectKind; field: Field } | undefined {
  const m = ATTRIBUTE_ID.exec(definitionId);
  return m ? { kind: m[1] as ObjectKind, field: m[2] as Field } : undefined;
}

export function ownKind(typeId: string | undefined): ObjectKind | undefined {
  return OBJECT_KINDS.find((k) => objectTypeId(k) === typeId);
}

/**
 * ReqIF content → interchange document (docs/interchange.md, "ReqIF import: the hierarchy rule").
 *
 * - Objects of reqlix's own SPEC-OBJECT-TYPEs map by type (exact round trip): kind, reference id, every
 *   field; their IDENTIFIER becomes `external_id` unless it is the one reqlix derives from the reference id.
 * - Other objects map by their place in a SPECIFICATION's SPEC-HIERARCHY, counting the specification as
 *   depth 0 and epic depth E (`epicDepth`, default "auto"): a node above depth E with children is an epic;
 *   at depth E an epic; at depth E+1 a user story when it has children; every other node a requirement.
 *   With E = 0 the specification itself is the epic. "auto" takes E = 1 when some specification nests
 *   objects three levels deep, else 0 (the specification is the epic when the tree is shallower).
 *   A requirement without a story above it goes into a story made for its epic ("<epic title>", external
 *   id `<epic key>#items`); one without an epic into the specification's epic. A requirement nested under
 *   another keeps its parent's IDENTIFIER in `attributes["ReqIF.parent"]`.
 * - Each such item's `external_id` is its ReqIF IDENTIFIER, so importing the same file again matches it.
 *   Values that are no reqlix field go into `attributes` by their definition's LONG-NAME.
 */
import { ENTITY_STATUSES, REQUIREMENT_STATUSES } from "../../domain.js";
import { SEED_RELATIONSHIP_TYPES, SEED_REQUIREMENT_TYPES } from "../../seeds.js";
import {
  type Attributes,
  type InterchangeDocument,
  type InterchangeDocumentInput,
  validateDocument,
} from "../document.js";
import type { RawNode, RawSpecification, ReqifContent } from "./reqif-content.js";
import { fieldsOf, type PreparedObject, prepareObject } from "./reqif-fields.js";
import { parseReqif } from "./reqif-parse.js";
import { DATATYPE_IDS, type ObjectKind, PRIORITY_NAMES } from "./reqif-vocabulary.js";

export interface ReqifReadOptions {
  /** Depth of epics in the hierarchy (0: the SPECIFICATION is the epic); "auto" by default. */
  epicDepth?: number | "auto";
  /** Requirement type of foreign requirements whose Type names no known type. */
  defaultType?: string;
  /** What error messages call the file. */
  label?: string;
}

type Kind = ObjectKind;
type Doc = InterchangeDocumentInput & {
  epics: NonNullable<InterchangeDocumentInput["epics"]>;
  user_stories: NonNullable<InterchangeDocumentInput["user_stories"]>;
  requirements: NonNullable<InterchangeDocumentInput["requirements"]>;
  acceptance_criteria: NonNullable<InterchangeDocumentInput["acceptance_criteria"]>;
  relationships: NonNullable<InterchangeDocumentInput["relationships"]>;
  requirement_types: NonNullable<InterchangeDocumentInput["requirement_types"]>;
  relationship_types: NonNullable<InterchangeDocumentInput["relationship_types"]>;
};

const TITLE_MAX = 200;

/** Where an object went: the key its children and relations name it by, its kind, its document item. */
interface Placed {
  key: string;
  kind: Kind;
  item: Item | undefined;
}

interface Item {
  reference_id?: string | undefined;
  external_id?: string | null | undefined;
  attributes?: Attributes | null | undefined;
  title: string;
}

/** Reads a ReqIF file (a stream of chunks) into a validated interchange document. */
export async function readReqif(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  options: ReqifReadOptions = {},
): Promise<InterchangeDocument> {
  const content = await parseReqif(source, options.label);
  return validateDocument(reqifToDocument(content, options));
}

/** How deep objects nest under each specification (the specification is depth 0). */
function maxGroupDepth(spec: RawSpecification): number {
  let max = 0;
  const stack: [RawNode, number][] = spec.children.map((n) => [n, 1]);
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [node, depth] = item;
    if (node.children.length > 0) max = Math.max(max, depth);
    for (const c of node.children) stack.push([c, depth + 1]);
  }
  return max;
}

/** Another tool's relation type as one of the seeded types: by name, a few common words, else relates_to. */
function foreignRelationType(name: string): string {
  const key = name
    .trim()
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_|_$/g, "")
    .toLowerCase();
  const seeded = SEED_RELATIONSHIP_TYPES.find((t) => t.name === key);
  if (seeded) return seeded.name;
  if (/^(depends|depends_on|requires|needs)$/.test(key)) return "depends_on";
  if (/^(blocks|blocking)$/.test(key)) return "blocks";
  if (/^(conflicts|conflicts_with|contradicts)$/.test(key)) return "conflicts_with";
  if (/^(derives|derived_from|derives_from|refines|parent|satisfies|traces_to|trace)$/.test(key))
    return "derives_from";
  return "relates_to";
}

function pickEnum<T extends string>(value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  return allowed.find((a) => a.toLowerCase() === v);
}

function pickPriority(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  const byName = PRIORITY_NAMES.findIndex((p) => p.toLowerCase() === v.toLowerCase());
  if (byName !== -1) return byName + 1;
  return /^[1-4]$/.test(v) ? Number(v) : undefined;
}

/** What every entity has, from a prepared object. */
interface Common {
  title: string;
  description: string;
  reference_id?: string;
  external_id?: string;
  attributes?: Attributes;
}

/**
 * A document item: the common fields, then `more`'s defined values, assigned one by one. Spreading objects
 * of several shapes at one site (`{ ...c, … }`) took V8's slow path, which gave each of 46,000 items a
 * hidden class of its own (~40 MB of maps and descriptors in a 100 MB import).
 */
function entity<M extends Record<string, unknown>>(
  c: Common,
  more: M,
): Common & { [K in keyof M]: Exclude<M[K], undefined> } {
  const o: Record<string, unknown> = { title: c.title, description: c.description };
  if (c.reference_id !== undefined) o.reference_id = c.reference_id;
  if (c.external_id !== undefined) o.external_id = c.external_id;
  if (c.attributes !== undefined) o.attributes = c.attributes;
  for (const key in more) if (more[key] !== undefined) o[key] = more[key];
  return o as Common & { [K in keyof M]: Exclude<M[K], undefined> };
}

export function reqifToDocument(
  content: ReqifContent,
  options: ReqifReadOptions = {},
): InterchangeDocumentInput {
  const doc: Doc = {
    format: "reqlix-export",
    version: 1,
    requirement_types: [],
    relationship_types: [],
    epics: [],
    user_stories: [],
    requirements: [],
    acceptance_criteria: [],
    relationships: [],
  };
  const defaultType = options.defaultType ?? "Functional";
  const knownTypes = new Map<string, string>();
  for (const t of SEED_REQUIREMENT_TYPES) knownTypes.set(t.name.toLowerCase(), t.name);
  // reqlix's own requirement-type enumeration lists the exporting workspace's types.
  const ownTypes = content.datatypes.get(DATATYPE_IDS.requirementType);
  for (const id of ownTypes?.values ?? []) {
    const v = content.enumValues.get(id);
    if (!v?.longName) continue;
    knownTypes.set(v.longName.toLowerCase(), v.longName);
    doc.requirement_types.push({ name: v.longName, description: v.desc ?? "" });
  }

  /**
   * Where each object went, by its IDENTIFIER (and each specification's epic by `spec:<id>`): one map, not
   * one per fact. Over 46,000 objects every map of that size is a hash table of ~2 MB, each doubling leaving
   * the last one behind in V8's large-object space until a full GC (~30 MB of a 100 MB import's peak).
   */
  const placed = new Map<string, Placed>();
  const synthetic = new Map<string, string>();
  const epicTitles = new Map<string, string>();
  /** Records where an object went; returns the key children and relations name it by. */
  const remember = (objectId: string, kind: Kind, item: Item | undefined) => {
    const key = item?.reference_id ?? item?.external_id ?? objectId;
    placed.set(objectId, { key, kind, item });
    return key;
  };

  /** The fields every entity has, from a prepared object, and its ReqIF fields apart. */
  const common = (object: PreparedObject) => {
    const c: Common = { title: object.title, description: object.description };
    if (object.reference_id !== undefined) c.reference_id = object.reference_id;
    if (object.external_id !== undefined) c.external_id = object.external_id;
    if (object.attributes !== undefined) c.attributes = object.attributes;
    const fields: { status?: string; priority?: string; type?: string } = {};
    if (object.status !== undefined) fields.status = object.status;
    if (object.priority !== undefined) fields.priority = object.priority;
    if (object.typeName !== undefined) fields.type = object.typeName;
    return { fields, c };
  };

  const addEpic = (
    id: string,
    make: () => InterchangeDocumentInput["epics"] extends (infer E)[] | undefined ? E : never,
  ) => {
    const epic = make();
    doc.epics.push(epic);
    const key = remember(id, "epic", epic);
    epicTitles.set(key, epic.title);
    return key;
  };

  const epicFromObject = (object: PreparedObject, own: boolean) =>
    addEpic(object.id, () => {
      const { fields, c } = common(object);
      const status = pickEnum(fields.status, ENTITY_STATUSES);
      const priority = pickPriority(fields.priority);
      if (!own) keepUnmapped(c, fields, status, priority);
      return entity(c, { status, priority });
    });

  const epicFromSpecification = (spec: RawSpecification) =>
    addEpic(`spec:${spec.id}`, () => {
      const { c } = common(prepareObject(spec, content));
      return entity(c, {
        title: c.title === spec.id && spec.longName ? spec.longName : c.title,
        external_id: spec.id,
      });
    });

  /** A story made to hold requirements that have no story above them. */
  const itemsStory = (epicKey: string, epicTitle: string) => {
    const key = `${epicKey}#items`;
    const existing = synthetic.get(key);
    if (existing) return existing;
    doc.user_stories.push({ external_id: key, epic: epicKey, title: epicTitle.slice(0, TITLE_MAX) });
    synthetic.set(key, key);
    return key;
  };

  const keepUnmapped = (
    c: { attributes?: Attributes },
    fields: Record<string, string | undefined>,
    status: string | undefined,
    priority: number | undefined,
  ) => {
    const put = (k: string, v: string) => {
      c.attributes ??= {};
      if (!(k in c.attributes)) c.attributes[k] = v;
    };
    if (fields.status !== undefined && !status) put("Status", fields.status);
    if (fields.priority !== undefined && !priority) put("Priority", fields.priority);
  };

  const titleOfEpic = (key: string) => epicTitles.get(key) ?? key;

  const epicDepthOption = options.epicDepth ?? "auto";
  const autoDepth = content.specifications.some((s) => maxGroupDepth(s) >= 2) ? 1 : 0;
  const E = epicDepthOption === "auto" ? autoDepth : epicDepthOption;

  interface Frame {
    node: RawNode;
    depth: number;
    epic?: string;
    story?: string;
    parentRequirement?: string;
    specEpic: () => string;
  }

  for (const spec of content.specifications) {
    let specEpicKey: string | undefined;
    const specEpic = () => {
      specEpicKey ??= epicFromSpecification(spec);
      return specEpicKey;
    };
    const stack: Frame[] = [...spec.children]
      .reverse()
      .map((node) => ({ node, depth: 1, ...(E === 0 ? { epic: specEpic() } : {}), specEpic }));
    for (let f = stack.pop(); f; f = stack.pop()) {
      const { node, depth } = f;
      const object = node.object ? content.objects.get(node.object) : undefined;
      const push = (child: Pick<Frame, "epic" | "story" | "parentRequirement">) => {
        for (const c of [...node.children].reverse()) {
          const frame: Frame = { node: c, depth: depth + 1, specEpic: f.specEpic };
          if (child.epic !== undefined) frame.epic = child.epic;
          if (child.story !== undefined) frame.story = child.story;
          if (child.parentRequirement !== undefined) frame.parentRequirement = child.parentRequirement;
          stack.push(frame);
        }
      };
      const inherited = { epic: f.epic, story: f.story, parentRequirement: f.parentRequirement };
      if (!object) {
        // A reference to an object the file does not define (seen in Enterprise Architect's output): there
        // is nothing to import at this place; its children keep their depth.
        push(inherited);
        continue;
      }
      if (placed.has(object.id)) {
        // The same object placed twice: imported once, at its first place.
        push(inherited);
        continue;
      }
      // The prepared object stays in `content.objects` (its strings are the item's, not copies): deleting
      // 46,000 entries shrank the map's table again and again, each copy left to a full GC.
      const own = object.kind;
      const hasChildren = node.children.length > 0;
      let kind: Kind;
      if (own) kind = own;
      else if (depth < E) kind = hasChildren ? "epic" : "requirement";
      else if (depth === E) kind = "epic";
      else if (depth === E + 1 && hasChildren) kind = "user-story";
      else kind = "requirement";

      if (kind === "epic") {
        const key = epicFromObject(object, !!own);
        push({ epic: key });
      } else if (kind === "user-story") {
        const epicKey = f.epic ?? f.specEpic();
        const { fields, c } = common(object);
        const status = pickEnum(fields.status, ENTITY_STATUSES);
        const priority = pickPriority(fields.priority);
        if (!own) keepUnmapped(c, fields, status, priority);
        doc.user_stories.push(entity(c, { epic: epicKey, status, priority }));
        remember(object.id, "user-story", doc.user_stories[doc.user_stories.length - 1]);
        push({ epic: epicKey, story: placed.get(object.id)?.key as string });
      } else if (kind === "acceptance-criterion") {
        const storyKey = f.story ?? itemsStory(f.epic ?? f.specEpic(), titleOfEpic(f.epic ?? f.specEpic()));
        const { c } = common(object);
        doc.acceptance_criteria.push(entity(c, { user_story: storyKey }));
        remember(object.id, kind, doc.acceptance_criteria[doc.acceptance_criteria.length - 1]);
        push(inherited);
      } else {
        const epicKey = f.epic ?? f.specEpic();
        const storyKey = f.story ?? itemsStory(epicKey, titleOfEpic(epicKey));
        const { fields, c } = common(object);
        const status = pickEnum(fields.status, REQUIREMENT_STATUSES);
        const priority = pickPriority(fields.priority);
        const type = fields.type !== undefined ? knownTypes.get(fields.type.trim().toLowerCase()) : undefined;
        if (!own) {
          keepUnmapped(c, fields, status, priority);
          if (fields.type !== undefined && !type) {
            c.attributes ??= {};
            c.attributes.Type ??= fields.type;
          }
          if (f.parentRequirement) {
            c.attributes ??= {};
            c.attributes["ReqIF.parent"] = f.parentRequirement;
          }
        }
        doc.requirements.push(
          entity(c, { user_story: storyKey, type: type ?? defaultType, status, priority }),
        );
        remember(object.id, "requirement", doc.requirements[doc.requirements.length - 1]);
        push({ epic: epicKey, story: storyKey, parentRequirement: object.id });
      }
    }
  }

  // Objects outside every specification still arrive: in an epic and a story made for them.
  const unplacedEpic = () => {
    const known = synthetic.get("reqif#unplaced");
    if (known) return known;
    const key = addEpic("reqif#unplaced", () => ({
      external_id: "reqif#unplaced",
      title: "ReqIF objects outside any specification",
    }));
    synthetic.set("reqif#unplaced", key);
    return key;
  };
  for (const object of content.objects.values()) {
    if (placed.has(object.id)) continue;
    const own = object.kind;
    if (own === "epic") {
      epicFromObject(object, true);
      continue;
    }
    const { fields, c } = common(object);
    const epicKey = unplacedEpic();
    if (own === "user-story") {
      const status = pickEnum(fields.status, ENTITY_STATUSES);
      const priority = pickPriority(fields.priority);
      doc.user_stories.push(entity(c, { epic: epicKey, status, priority }));
      remember(object.id, own, doc.user_stories[doc.user_stories.length - 1]);
      continue;
    }
    const storyKey = itemsStory(epicKey, "ReqIF objects outside any specification");
    if (own === "acceptance-criterion") {
      doc.acceptance_criteria.push(entity(c, { user_story: storyKey }));
      remember(object.id, own, doc.acceptance_criteria[doc.acceptance_criteria.length - 1]);
      continue;
    }
    const status = pickEnum(fields.status, REQUIREMENT_STATUSES);
    const priority = pickPriority(fields.priority);
    const type = fields.type !== undefined ? knownTypes.get(fields.type.trim().toLowerCase()) : undefined;
    if (!own) {
      keepUnmapped(c, fields, status, priority);
      if (fields.type !== undefined && !type) {
        c.attributes ??= {};
        c.attributes.Type ??= fields.type;
      }
    }
    doc.requirements.push(entity(c, { user_story: storyKey, type: type ?? defaultType, status, priority }));
    remember(object.id, "requirement", doc.requirements[doc.requirements.length - 1]);
  }

  // Relationships join requirements; any other relation is kept on the object it starts from.
  const attributesOf = (objectId: string) => {
    const item = placed.get(objectId)?.item;
    if (!item) return undefined;
    item.attributes ??= {};
    return item.attributes;
  };
  for (const rel of content.relations) {
    const type = rel.type ? content.specTypes.get(rel.type) : undefined;
    const rawName = type?.longName ?? rel.type ?? "";
    const own = rel.type?.startsWith("reqlix-relation-type-") ?? false;
    const name = own ? rawName : foreignRelationType(rawName);
    const from = rel.source ? placed.get(rel.source) : undefined;
    const to = rel.target ? placed.get(rel.target) : undefined;
    const source = from?.key;
    const target = to?.key;
    const joinsRequirements = source && target && from.kind === "requirement" && to.kind === "requirement";
    if (joinsRequirements) doc.relationships.push({ source, target, type: name });
    // What a relationship cannot hold (another tool's type name, values, an end that is no requirement)
    // stays on the object it starts from.
    if (joinsRequirements && (own || (name === rawName && rel.values.length === 0))) continue;
    const holder = (rel.source && attributesOf(rel.source)) || (rel.target && attributesOf(rel.target));
    // A relation between two objects the file does not define joins nothing that is imported.
    if (!holder) continue;
    const kept = Array.isArray(holder["ReqIF.relations"]) ? holder["ReqIF.relations"] : [];
    kept.push({
      identifier: rel.id,
      type: rawName,
      source: rel.source ?? null,
      target: rel.target ?? null,
      ...(rel.values.length > 0 ? { values: fieldsOf(rel, content, false).attributes } : {}),
    });
    holder["ReqIF.relations"] = kept;
  }
  for (const t of content.specTypes.values()) {
    if (t.kind === "SPEC-RELATION-TYPE" && t.id.startsWith("reqlix-relation-type-") && t.longName) {
      doc.relationship_types.push({ name: t.longName, description: t.desc ?? "" });
    }
  }

  return doc;
}

/**
 * ReqIF XML events → `ReqifContent`: a state machine over element names that keeps identifiers, names and
 * values and nothing else (no DOM). Elements are recognised by local name, so ReqIF 1.0.1 and 1.2 files
 * (one namespace) and files with an unusual prefix read alike; TOOL-EXTENSIONS and anything unknown are
 * skipped.
 */
import {
  emptyContent,
  type RawAttributeDefinition,
  type RawDatatype,
  type RawEnumValue,
  type RawNode,
  type RawObject,
  type RawRelation,
  type RawSpecification,
  type RawSpecType,
  type RawValue,
  type ReqifContent,
} from "./reqif-content.js";
import { prepareObject } from "./reqif-fields.js";
import { XhtmlCollector } from "./xhtml-collector.js";
import { own, readXmlStream, type XmlElement, type XmlHandler } from "./xml-stream.js";

const DATATYPE = /^DATATYPE-DEFINITION-([A-Z]+)$/;
const DATATYPE_REF = /^DATATYPE-DEFINITION-[A-Z]+-REF$/;
const ATTRIBUTE_DEFINITION = /^ATTRIBUTE-DEFINITION-([A-Z]+)$/;
const ATTRIBUTE_DEFINITION_REF = /^ATTRIBUTE-DEFINITION-[A-Z]+-REF$/;
const ATTRIBUTE_VALUE = /^ATTRIBUTE-VALUE-([A-Z]+)$/;
const SPEC_TYPES = new Set([
  "SPEC-OBJECT-TYPE",
  "SPECIFICATION-TYPE",
  "SPEC-RELATION-TYPE",
  "RELATION-GROUP-TYPE",
]);
const TYPE_REFS = new Set(["SPEC-OBJECT-TYPE-REF", "SPEC-RELATION-TYPE-REF", "SPECIFICATION-TYPE-REF"]);
const HEADER_FIELDS = {
  TITLE: "title",
  COMMENT: "comment",
  "CREATION-TIME": "creationTime",
  "REQ-IF-TOOL-ID": "toolId",
  "SOURCE-TOOL-ID": "sourceToolId",
} as const;

type Owner = RawObject | RawRelation | RawSpecification;

class ReqifHandler implements XmlHandler {
  readonly content = emptyContent();
  private readonly stack: string[] = [];
  private capture: { depth: number; text: string; done: (text: string) => void } | undefined;
  private xhtml: { depth: number; collector: XhtmlCollector; original: boolean } | undefined;
  private datatype: RawDatatype | undefined;
  private enumValue: RawEnumValue | undefined;
  private specType: RawSpecType | undefined;
  private definition: RawAttributeDefinition | undefined;
  private owner: Owner | undefined;
  private object: RawObject | undefined;
  private relation: RawRelation | undefined;
  private specification: RawSpecification | undefined;
  private value: RawValue | undefined;
  private readonly nodes: RawNode[] = [];

  open(e: XmlElement): void {
    if (this.xhtml) {
      this.xhtml.collector.open(e);
      this.stack.push(e.local);
      return;
    }
    const parent = this.stack[this.stack.length - 1] ?? "";
    const grand = this.stack[this.stack.length - 2] ?? "";
    this.stack.push(e.local);
    const name = e.local;
    const a = e.attributes;

    if (name === "REQ-IF-HEADER") {
      if (a.IDENTIFIER) this.content.header.id = a.IDENTIFIER;
      return;
    }
    if (parent === "REQ-IF-HEADER" && name in HEADER_FIELDS) {
      const field = HEADER_FIELDS[name as keyof typeof HEADER_FIELDS];
      this.captureText((text) => {
        this.content.header[field] = text;
      });
      return;
    }
    const datatype = DATATYPE.exec(name);
    if (datatype && parent === "DATATYPES") {
      need(e, "datatype");
      this.datatype = {
        id: a.IDENTIFIER ?? "",
        kind: datatype[1] ?? "",
        values: [],
        ...pick(a, "LONG-NAME"),
      };
      this.content.datatypes.set(this.datatype.id, this.datatype);
      return;
    }
    if (name === "ENUM-VALUE" && parent === "SPECIFIED-VALUES" && this.datatype) {
      need(e, "ENUM-VALUE");
      const { lastChange: _ignored, ...value } = identified(a);
      this.enumValue = value;
      this.datatype.values.push(value.id);
      this.content.enumValues.set(value.id, value);
      return;
    }
    if (name === "EMBEDDED-VALUE" && this.enumValue) {
      if (a.KEY !== undefined) this.enumValue.key = a.KEY;
      if (a["OTHER-CONTENT"] !== undefined) this.enumValue.otherContent = a["OTHER-CONTENT"];
      return;
    }
    if (SPEC_TYPES.has(name) && parent === "SPEC-TYPES") {
      need(e, name);
      const { lastChange: _ignored, ...type } = identified(a);
      this.specType = { ...type, kind: name, attributes: [] };
      this.content.specTypes.set(this.specType.id, this.specType);
      return;
    }
    const definition = ATTRIBUTE_DEFINITION.exec(name);
    if (definition && parent === "SPEC-ATTRIBUTES" && this.specType) {
      need(e, "attribute definition");
      this.definition = {
        id: a.IDENTIFIER ?? "",
        kind: definition[1] ?? "",
        ...pick(a, "LONG-NAME"),
        ...(a["MULTI-VALUED"] === "true" ? { multiValued: true } : {}),
      };
      this.specType.attributes.push(this.definition.id);
      this.content.attributeDefinitions.set(this.definition.id, this.definition);
      return;
    }
    if (DATATYPE_REF.test(name) && parent === "TYPE" && this.definition) {
      const definitionNow = this.definition;
      this.captureText((text) => {
        definitionNow.datatype = text;
      });
      return;
    }
    if (name === "SPEC-OBJECT" && parent === "SPEC-OBJECTS") {
      need(e, "SPEC-OBJECT");
      this.owner = { ...identified(a), values: [] };
      this.object = this.owner;
      return;
    }
    if (name === "SPEC-RELATION" && parent === "SPEC-RELATIONS") {
      need(e, "SPEC-RELATION");
      this.relation = { ...identified(a), values: [] };
      this.owner = this.relation;
      this.content.relations.push(this.relation);
      return;
    }
    if (name === "SPECIFICATION" && parent === "SPECIFICATIONS") {
      need(e, "SPECIFICATION");
      this.specification = { ...identified(a), values: [], children: [] };
      this.owner = this.specification;
      this.content.specifications.push(this.specification);
      return;
    }
    const value = ATTRIBUTE_VALUE.exec(name);
    if (value && ((parent === "VALUES" && this.owner) || (parent === "DEFAULT-VALUE" && this.definition))) {
      this.value = {
        definition: "",
        kind: value[1] ?? "",
        ...(a["THE-VALUE"] !== undefined ? { value: a["THE-VALUE"] } : {}),
      };
      if (parent === "DEFAULT-VALUE" && this.definition) this.definition.defaultValue = this.value;
      else this.owner?.values.push(this.value);
      return;
    }
    if (ATTRIBUTE_DEFINITION_REF.test(name) && parent === "DEFINITION" && this.value) {
      const valueNow = this.value;
      this.captureText((text) => {
        valueNow.definition = text;
      });
      return;
    }
    if (name === "ENUM-VALUE-REF" && parent === "VALUES" && this.value) {
      const valueNow = this.value;
      this.captureText((text) => {
        valueNow.refs ??= [];
        valueNow.refs.push(text);
      });
      return;
    }
    if ((name === "THE-VALUE" || name === "THE-ORIGINAL-VALUE") && this.value?.kind === "XHTML") {
      this.xhtml = {
        depth: this.stack.length,
        collector: new XhtmlCollector(),
        original: name !== "THE-VALUE",
      };
      return;
    }
    if (TYPE_REFS.has(name) && parent === "TYPE" && this.owner) {
      const ownerNow = this.owner;
      this.captureText((text) => {
        ownerNow.type = text;
      });
      return;
    }
    if (name === "SPEC-OBJECT-REF" && (parent === "SOURCE" || parent === "TARGET") && this.relation) {
      const relationNow = this.relation;
      const end = parent === "SOURCE" ? "source" : "target";
      this.captureText((text) => {
        relationNow[end] = text;
      });
      return;
    }
    if (name === "SPEC-HIERARCHY" && parent === "CHILDREN" && this.specification) {
      const node: RawNode = { object: undefined, children: [] };
      const up = this.nodes[this.nodes.length - 1];
      (up ? up.children : this.specification.children).push(node);
      this.nodes.push(node);
      return;
    }
    if (name === "SPEC-OBJECT-REF" && parent === "OBJECT" && grand === "SPEC-HIERARCHY") {
      const node = this.nodes[this.nodes.length - 1];
      if (node) {
        this.captureText((text) => {
          node.object = text;
        });
      }
    }
  }

  close(e: XmlElement): void {
    if (this.xhtml) {
      if (this.stack.length === this.xhtml.depth) {
        const done = this.xhtml.collector.finish();
        if (this.value) {
          if (this.xhtml.original) this.value.original = done;
          else this.value.xhtml = done;
        }
        this.xhtml = undefined;
      } else {
        this.xhtml.collector.close(e);
      }
      this.stack.pop();
      return;
    }
    if (this.capture && this.capture.depth === this.stack.length) {
      this.capture.done(own(this.capture.text.trim()));
      this.capture = undefined;
    }
    this.stack.pop();
    const name = e.local;
    if (DATATYPE.test(name) && this.stack[this.stack.length - 1] === "DATATYPES") this.datatype = undefined;
    else if (name === "ENUM-VALUE") this.enumValue = undefined;
    else if (SPEC_TYPES.has(name)) this.specType = undefined;
    else if (ATTRIBUTE_DEFINITION.test(name)) this.definition = undefined;
    else if (ATTRIBUTE_VALUE.test(name)) this.value = undefined;
    else if (name === "SPEC-HIERARCHY") this.nodes.pop();
    else if (name === "SPEC-OBJECT" || name === "SPEC-RELATION" || name === "SPECIFICATION") {
      if (name === "SPEC-OBJECT" && this.object) {
        this.content.objects.set(this.object.id, prepareObject(this.object, this.content));
        this.object = undefined;
      }
      this.owner = undefined;
      this.relation = undefined;
      this.specification = undefined;
    }
  }

  text(text: string): void {
    if (this.xhtml) this.xhtml.collector.text(text);
    else if (this.capture) this.capture.text += text;
  }

  private captureText(done: (text: string) => void): void {
    this.capture = { depth: this.stack.length, text: "", done };
  }

  finish(): ReqifContent {
    if (this.stack.length !== 0) throw new Error("the document ended before its elements closed");
    return this.content;
  }
}

/** Identifier, names and change time of an Identifiable element (defined once: open() runs per element). */
function identified(a: Record<string, string>) {
  return {
    id: a.IDENTIFIER ?? "",
    ...(a["LONG-NAME"] !== undefined ? { longName: a["LONG-NAME"] } : {}),
    ...(a.DESC !== undefined ? { desc: a.DESC } : {}),
    ...(a["LAST-CHANGE"] !== undefined ? { lastChange: a["LAST-CHANGE"] } : {}),
  };
}

function need(e: XmlElement, what: string): void {
  if (!e.attributes.IDENTIFIER) throw new Error(`<${e.name}> has no IDENTIFIER; every ${what} needs one`);
}

function pick(a: Record<string, string>, key: "LONG-NAME"): { longName?: string } {
  return a[key] !== undefined ? { longName: a[key] } : {};
}

export const REQIF_NS = "http://www.omg.org/spec/ReqIF/20110401/reqif.xsd";

/** Reads a ReqIF file from a stream of chunks; rejects with a positioned `DocumentError` on bad input. */
export async function parseReqif(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  label = "The ReqIF file",
): Promise<ReqifContent> {
  const handler = new ReqifHandler();
  let root: XmlElement | undefined;
  await readXmlStream(
    source,
    {
      open(e) {
        if (!root) {
          root = e;
          if (e.local !== "REQ-IF") {
            throw new Error(`the root element is <${e.name}>, not <REQ-IF>: this is not a ReqIF file`);
          }
        }
        handler.open(e);
      },
      close: (e) => handler.close(e),
      text: (t) => handler.text(t),
    },
    { label },
  );
  return handler.finish();
}

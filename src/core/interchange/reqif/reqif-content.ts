/**
 * What the ReqIF reader keeps of a file: identifiers, names and values, no XML. Objects are resolved into
 * the interchange document only after SPECIFICATIONS (the last section) is read, because only then is an
 * object's place in the hierarchy, and so its kind, known.
 */

import type { PreparedObject } from "./reqif-fields.js";

/** A value of one attribute of a spec object, relation or specification. */
export interface RawValue {
  /** IDENTIFIER of the ATTRIBUTE-DEFINITION-… it is a value of. */
  definition: string;
  /** STRING, XHTML, ENUMERATION, INTEGER, REAL, BOOLEAN or DATE. */
  kind: string;
  /** THE-VALUE of simple kinds. */
  value?: string;
  /** ENUM-VALUE-REFs of an enumeration value. */
  refs?: string[];
  xhtml?: XhtmlValue;
  /** THE-ORIGINAL-VALUE of an XHTML value (e.g. DOORS rich text), kept as it came. */
  original?: XhtmlValue;
}

export interface XhtmlValue {
  /** The content of THE-VALUE, re-serialized (namespace declarations kept); "" when `plain`. */
  xml: string;
  /** A plain-text rendering: block elements become lines, `br` a line break. */
  text: string;
  /**
   * Exactly the text when the value is one `xhtml:div` holding only text and `br` elements (the form the
   * reqlix writer uses); then `text` is exact and the markup, which adds nothing, is not kept.
   */
  plain: boolean;
}

export interface RawObject {
  id: string;
  longName?: string;
  desc?: string;
  lastChange?: string;
  type?: string;
  values: RawValue[];
}

export interface RawRelation extends RawObject {
  source?: string;
  target?: string;
}

/** A SPEC-HIERARCHY: the object it places and its children (its own IDENTIFIER is not needed, so not kept). */
export interface RawNode {
  object: string | undefined;
  children: RawNode[];
}

export interface RawSpecification extends RawObject {
  children: RawNode[];
}

export interface RawEnumValue {
  id: string;
  longName?: string;
  desc?: string;
  key?: string;
  otherContent?: string;
}

export interface RawDatatype {
  id: string;
  kind: string;
  longName?: string;
  values: string[];
}

export interface RawAttributeDefinition {
  id: string;
  kind: string;
  longName?: string;
  datatype?: string;
  multiValued?: boolean;
  /** The DEFAULT-VALUE, applied to objects of the type that have no value for it. */
  defaultValue?: RawValue;
}

export interface RawSpecType {
  id: string;
  /** SPEC-OBJECT-TYPE, SPECIFICATION-TYPE, SPEC-RELATION-TYPE or RELATION-GROUP-TYPE. */
  kind: string;
  longName?: string;
  desc?: string;
  attributes: string[];
}

export interface RawHeader {
  id?: string;
  title?: string;
  comment?: string;
  creationTime?: string;
  toolId?: string;
  sourceToolId?: string;
}

/** Everything read from one ReqIF file. */
export interface ReqifContent {
  header: RawHeader;
  datatypes: Map<string, RawDatatype>;
  enumValues: Map<string, RawEnumValue>;
  attributeDefinitions: Map<string, RawAttributeDefinition>;
  specTypes: Map<string, RawSpecType>;
  /** Spec objects, prepared as each is read (`prepareObject`): their raw values are not kept. */
  objects: Map<string, PreparedObject>;
  relations: RawRelation[];
  specifications: RawSpecification[];
}

export function emptyContent(): ReqifContent {
  return {
    header: {},
    datatypes: new Map(),
    enumValues: new Map(),
    attributeDefinitions: new Map(),
    specTypes: new Map(),
    objects: new Map(),
    relations: [],
    specifications: [],
  };
}

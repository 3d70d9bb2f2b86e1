/**
 * Collects the XHTML content of one ATTRIBUTE-VALUE-XHTML's THE-VALUE from parser events: re-serialized
 * (so rich text is kept as it came) and rendered as plain text (so it can be a description).
 */
import type { XhtmlValue } from "./reqif-content.js";
import { own, type XmlElement } from "./xml-stream.js";

export const XHTML_NS = "http://www.w3.org/1999/xhtml";

const BLOCKS = new Set([
  "address",
  "blockquote",
  "dd",
  "div",
  "dl",
  "dt",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "hr",
  "li",
  "ol",
  "p",
  "pre",
  "table",
  "tr",
  "ul",
]);

export function escapeXmlText(text: string): string {
  return text.replace(/[&<>\r]/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&#13;",
  );
}

export function escapeXmlAttribute(text: string): string {
  return text.replace(/[&<>"\t\n\r]/g, (c) => {
    switch (c) {
      case "&":
        return "&amp;";
      case "<":
        return "&lt;";
      case ">":
        return "&gt;";
      case '"':
        return "&quot;";
      default:
        // Attribute-value normalisation would turn a literal tab or line break into a space.
        return `&#${c.charCodeAt(0)};`;
    }
  });
}

export class XhtmlCollector {
  private readonly xml: string[] = [];
  private readonly rendered: string[] = [];
  private readonly exact: string[] = [];
  private depth = 0;
  private topElements = 0;
  private plain = true;
  private preDepth = 0;
  /** Prefixes declared inside the fragment, per open element. */
  private readonly declared: Set<string>[] = [];

  open(e: XmlElement): void {
    const local = e.uri === XHTML_NS ? e.local : "";
    if (this.depth === 0) {
      this.topElements += 1;
      if (this.topElements > 1 || local !== "div" || Object.keys(e.attributes).length > 0) this.plain = false;
    } else if (local !== "br" || Object.keys(e.attributes).length > 0) {
      this.plain = false;
    }
    if (local === "br") this.exact.push("\n");
    this.serializeOpen(e);
    this.depth += 1;
    if (local === "pre") this.preDepth += 1;
    if (local === "br") this.rendered.push("\n");
    else if (local === "li") this.rendered.push("\n- ");
    else if (BLOCKS.has(local)) this.rendered.push("\n");
  }

  close(e: XmlElement): void {
    this.depth -= 1;
    this.declared.pop();
    const local = e.uri === XHTML_NS ? e.local : "";
    if (!e.selfClosing) this.xml.push(`</${e.name}>`);
    if (local === "pre") this.preDepth -= 1;
    if (BLOCKS.has(local)) this.rendered.push("\n");
    else if (local === "td" || local === "th") this.rendered.push(" | ");
  }

  text(text: string): void {
    if (this.depth === 0) {
      if (text.trim() !== "") this.plain = false;
      return;
    }
    this.xml.push(escapeXmlText(text));
    this.exact.push(text);
    this.rendered.push(this.preDepth > 0 ? text : text.replace(/\s+/g, " "));
  }

  finish(): XhtmlValue {
    if (this.plain && this.topElements === 1) {
      // The markup adds nothing to the text: only the text is kept.
      return { xml: "", text: own(this.exact.join("")), plain: true };
    }
    const text = this.rendered
      .join("")
      .split("\n")
      .map((line) => line.replace(/^[ \t]+|[ \t]+$/g, ""))
      .join("\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim();
    return { xml: own(this.xml.join("").trim()), text: own(text), plain: false };
  }

  private serializeOpen(e: XmlElement): void {
    const inScope = (prefix: string) => this.declared.some((s) => s.has(prefix));
    const here = new Set<string>();
    let out = `<${e.name}`;
    for (const [prefix, uri] of Object.entries(e.ns)) {
      out +=
        prefix === ""
          ? ` xmlns="${escapeXmlAttribute(uri)}"`
          : ` xmlns:${prefix}="${escapeXmlAttribute(uri)}"`;
      here.add(prefix);
    }
    // The fragment must stand alone: declare the element's own prefix when an ancestor outside it did.
    const colon = e.name.indexOf(":");
    const prefix = colon === -1 ? "" : e.name.slice(0, colon);
    if (!here.has(prefix) && !inScope(prefix) && (prefix !== "" || e.uri !== "")) {
      out +=
        prefix === ""
          ? ` xmlns="${escapeXmlAttribute(e.uri)}"`
          : ` xmlns:${prefix}="${escapeXmlAttribute(e.uri)}"`;
      here.add(prefix);
    }
    for (const [name, value] of Object.entries(e.attributes))
      out += ` ${name}="${escapeXmlAttribute(value)}"`;
    this.xml.push(e.selfClosing ? `${out}/>` : `${out}>`);
    this.declared.push(here);
  }
}

/**
 * A safe, streaming XML reader for imports: bytes in, element and text events out, never a DOM, so a
 * 100 MB file costs what its handler keeps and not the file's size.
 *
 * The parser is saxes: strict XML 1.0 with namespaces, positions, incremental `write`, no dependencies but
 * `xmlchars`, and it never fetches or expands anything a DTD declares. We go further and refuse any
 * DOCTYPE: ReqIF (like every format we read) has no DTD, and a DOCTYPE is how external entities (XXE) and
 * entity expansion bombs ("billion laughs") arrive, so there is nothing to lose and a clear message to give.
 */
import { type SaxesAttributeNS, SaxesParser, type SaxesTagNS } from "saxes";
import { DocumentError } from "../document.js";

export interface XmlElement {
  /** Namespace URI ("" when none). */
  uri: string;
  /** Local name, without prefix. */
  local: string;
  /** Qualified name as written (`xhtml:div`). */
  name: string;
  /** Attributes by qualified name. */
  attributes: Record<string, string>;
  /** Namespace declarations made on this element (prefix → URI; "" is the default namespace). */
  ns: Record<string, string>;
  selfClosing: boolean;
}

export interface XmlHandler {
  open(element: XmlElement): void;
  close(element: XmlElement): void;
  text(text: string): void;
}

export interface XmlStreamOptions {
  /** Deepest element nesting accepted (a guard against pathological input). */
  maxDepth?: number;
  /** What the error messages call the file. */
  label?: string;
}

const DEFAULT_MAX_DEPTH = 512;
/** Text is handed to saxes in pieces of this many characters. */
const PIECE = 4096;
/** Longer than any entity or character reference a valid file holds. */
const MAX_ENTITY_NAME = 64;

/** Strings up to this long are copied by `own` from their character codes. */
const OWN_BY_CODES = 256;

/**
 * A copy of `s` that keeps nothing else alive. V8 makes a substring of 13+ characters a view into its
 * parent, so a kept identifier would pin the whole piece of the file it was cut from; over a 100 MB file
 * that pins the file. A short string (identifiers, names: most of what a file's objects keep) is rebuilt
 * from its character codes, a flat string of its own; cutting a longer one out of a concatenation makes a
 * view into a fresh copy, whose 32-byte view header is small beside it (as a header on every identifier of
 * 46,000 objects it was ~10 MB).
 */
export function own(s: string): string {
  if (s.length < 13) return s;
  if (s.length > OWN_BY_CODES) return ` ${s}`.slice(1);
  const codes = new Array<number>(s.length);
  for (let i = 0; i < s.length; i++) codes[i] = s.charCodeAt(i);
  return String.fromCharCode.apply(null, codes);
}

/** An error of the input, at a 1-based line and column. */
function positioned(label: string, message: string, line: number, column: number): DocumentError {
  return new DocumentError(`${label} is not valid XML at line ${line}, column ${column}: ${message}`, [
    { message, line, column },
  ]);
}

/** The encoding named by a byte order mark or the XML declaration of the file's first bytes. */
function sniffEncoding(head: Uint8Array): string {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return "utf-8";
  if (head[0] === 0xff && head[1] === 0xfe) return "utf-16le";
  if (head[0] === 0xfe && head[1] === 0xff) return "utf-16be";
  const ascii = String.fromCharCode(...head.subarray(0, 256));
  const declared = /^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(ascii)?.[1];
  return declared ?? "utf-8";
}

function decoderFor(label: string, encoding: string): TextDecoder {
  try {
    return new TextDecoder(encoding, { fatal: true });
  } catch {
    throw new DocumentError(
      `${label} declares the encoding "${encoding}", which is not supported. Fix: save it as UTF-8.`,
      [{ message: `unsupported encoding "${encoding}"`, line: 1, column: 1 }],
    );
  }
}

/**
 * Feeds `source` (bytes or already-decoded text, in chunks) through saxes into `handler`. Resolves when the
 * document is complete and well-formed; rejects with a `DocumentError` naming the line and column of the
 * first problem (malformed XML, a DOCTYPE, bad encoding). Events before the error have been delivered, so a
 * caller must treat its state as garbage on rejection (imports write nothing until the whole file parsed).
 */
export async function readXmlStream(
  source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  handler: XmlHandler,
  options: XmlStreamOptions = {},
): Promise<void> {
  const label = options.label ?? "The file";
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const parser = new SaxesParser({ xmlns: true, position: true });
  let depth = 0;
  let sawRoot = false;
  let failure: DocumentError | undefined;
  // saxes's column is the 0-based index of the next character: as a 1-based column it names the last
  // character read, where the problem was found (the `>` of a bad tag).
  const at = () => ({ line: parser.line, column: Math.max(1, parser.column) });
  const stop = (message: string) => {
    const { line, column } = at();
    failure ??= positioned(label, message, line, column);
    throw failure;
  };

  parser.on("error", (err) => {
    // saxes prefixes "line:column: "; we give the position our way (1-based column).
    stop(err.message.replace(/^\d+:\d+: /, ""));
  });
  parser.on("doctype", () => {
    stop(
      "a DOCTYPE declaration is not accepted. DTDs can declare external entities (XXE) and entity expansion " +
        "bombs, and ReqIF needs none. Fix: remove the <!DOCTYPE …> declaration.",
    );
  });
  const element = (tag: SaxesTagNS): XmlElement => {
    const attributes: Record<string, string> = {};
    for (const [name, attr] of Object.entries(tag.attributes) as [string, SaxesAttributeNS][]) {
      if (attr.prefix === "xmlns" || name === "xmlns") continue;
      attributes[name] = own(attr.value);
    }
    return {
      uri: tag.uri,
      local: tag.local,
      name: tag.name,
      attributes,
      ns: tag.ns ?? {},
      selfClosing: tag.isSelfClosing,
    };
  };
  // The open elements, innermost last (saxes closes them in order). Kept in a Map by saxes tag, the 1.6
  // million elements of a 100 MB file were promoted to the old generation through its table (214 MB
  // promoted for 8 MB live, all of it left for a full GC): the server's heap grew by ~90 MB more.
  const open: XmlElement[] = [];
  parser.on("opentag", (tag) => {
    sawRoot = true;
    depth += 1;
    if (depth > maxDepth) stop(`elements are nested deeper than ${maxDepth} levels`);
    const e = element(tag);
    open.push(e);
    handler.open(e);
  });
  parser.on("closetag", (tag) => {
    depth -= 1;
    const e = open.pop() ?? element(tag);
    handler.close(e);
  });
  parser.on("text", (text) => {
    if (depth > 0) handler.text(text);
  });
  parser.on("cdata", (text) => {
    if (depth > 0) handler.text(text);
  });

  let decoder: TextDecoder | undefined;
  // The piece before the current one: where a bad `&` is found when it began in that one.
  let previous = "";
  const write = (text: string) => {
    // saxes reads an entity reference up to its `;`, so a stray `&` would swallow the rest of the file and
    // fail at its end. Feeding pieces and watching the reference being read catches it at once, in place.
    for (let i = 0; i < text.length; i += PIECE) {
      const piece = text.slice(i, i + PIECE);
      try {
        parser.write(piece);
      } catch (err) {
        if (err instanceof DocumentError) throw err;
        // A handler's own error (e.g. a ReqIF rule) is reported at the parser's position.
        stop(err instanceof Error ? err.message : String(err));
      }
      const pending = (parser as unknown as { entity: string }).entity;
      if (pending.length <= MAX_ENTITY_NAME && !pending.includes("\n")) {
        previous = piece;
      } else {
        const tail = previous + piece;
        const amp = tail.length - pending.length - 1;
        const after = tail.slice(amp);
        const newlines = after.split("\n").length - 1;
        const lineStart = tail.lastIndexOf("\n", amp);
        const line = parser.line - newlines;
        const column = newlines === 0 ? parser.column - pending.length : amp - lineStart;
        failure = positioned(
          label,
          "an `&` that starts no entity reference. Fix: write a literal ampersand as &amp;",
          line,
          Math.max(1, column),
        );
        throw failure;
      }
    }
  };
  for await (const chunk of source) {
    if (typeof chunk === "string") {
      write(chunk);
      continue;
    }
    decoder ??= decoderFor(label, sniffEncoding(chunk));
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      // Parse what came before the bad bytes, so the error names their line and column.
      const lenient = new TextDecoder(decoder.encoding).decode(chunk, { stream: true });
      const bad = lenient.indexOf("\uFFFD");
      if (bad > 0) write(lenient.slice(0, bad));
      stop(`the bytes are not valid ${decoder.encoding}. Fix: save the file as UTF-8`);
      return;
    }
    write(text);
  }
  try {
    if (decoder) write(decoder.decode());
  } catch (err) {
    if (err instanceof DocumentError) throw err;
    stop(`the file ends in the middle of a ${decoder?.encoding} character`);
  }
  if (!sawRoot) {
    throw new DocumentError(`${label} is empty or holds no XML element.`, [
      { message: "no root element", line: at().line, column: at().column },
    ]);
  }
  try {
    parser.close();
  } catch (err) {
    if (err instanceof DocumentError) throw err;
    stop(err instanceof Error ? err.message : String(err));
  }
}

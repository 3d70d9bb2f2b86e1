/**
 * The ReqIF reader's XML rules: no DOCTYPE (so no external entities, no entity expansion bombs), malformed
 * XML and bad bytes refused with a line and a column, a non-ReqIF root refused.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, test } from "vitest";
import { DocumentError } from "../../../src/core/interchange/document.js";
import { readReqif } from "../../../src/core/interchange/reqif/reqif-read.js";

const MINIMAL = `<?xml version="1.0" encoding="UTF-8"?>
<REQ-IF xmlns="http://www.omg.org/spec/ReqIF/20110401/reqif.xsd">
  <CORE-CONTENT><REQ-IF-CONTENT>
    <SPEC-OBJECTS>
      <SPEC-OBJECT IDENTIFIER="o1" LAST-CHANGE="2026-01-01T00:00:00Z" LONG-NAME="One &amp; only"/>
    </SPEC-OBJECTS>
  </REQ-IF-CONTENT></CORE-CONTENT>
</REQ-IF>`;

async function refusal(xml: string | Uint8Array): Promise<DocumentError> {
  try {
    await readReqif([xml]);
  } catch (err) {
    expect(err).toBeInstanceOf(DocumentError);
    return err as DocumentError;
  }
  throw new Error("the file was accepted");
}

describe("ReqIF import refuses what XML parsers get attacked with", () => {
  test("an external entity (XXE) is refused at its DOCTYPE and nothing is fetched", async () => {
    let fetched = 0;
    const server = createServer((_req, res) => {
      fetched += 1;
      res.end("secret");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    try {
      const xxe = `<?xml version="1.0"?>
<!DOCTYPE REQ-IF [
  <!ENTITY file SYSTEM "file:///etc/passwd">
  <!ENTITY remote SYSTEM "http://127.0.0.1:${port}/steal">
]>
<REQ-IF><THE-HEADER><REQ-IF-HEADER IDENTIFIER="h"><TITLE>&file;&remote;</TITLE></REQ-IF-HEADER></THE-HEADER></REQ-IF>`;
      const err = await refusal(xxe);
      expect(err.message).toMatch(/at line 5, column \d+: a DOCTYPE declaration is not accepted/);
      expect(err.message).toContain("external entities (XXE)");
      expect(err.message).toContain("Fix: remove the <!DOCTYPE");
      expect(err.problems[0]).toMatchObject({ line: 5 });
      expect(err.message).not.toContain("root:");
      expect(fetched).toBe(0);
    } finally {
      server.close();
    }
  });

  test("an entity expansion bomb (billion laughs) is refused before anything expands", async () => {
    const levels = Array.from(
      { length: 9 },
      (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`,
    ).join("\n");
    const bomb = `<?xml version="1.0"?>\n<!DOCTYPE lolz [\n<!ENTITY lol0 "lol">\n${levels}\n]>\n<REQ-IF><THE-HEADER><REQ-IF-HEADER IDENTIFIER="h"><TITLE>&lol9;</TITLE></REQ-IF-HEADER></THE-HEADER></REQ-IF>`;
    const before = process.memoryUsage().heapUsed;
    const err = await refusal(bomb);
    expect(err.message).toMatch(/at line 13, column \d+: a DOCTYPE declaration is not accepted/);
    expect(err.message).toContain("entity expansion bombs");
    // 10^9 "lol"s would be gigabytes; refusing at the DOCTYPE costs nothing.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(50 * 1024 * 1024);
  });

  test("an entity used without a DTD is an undefined entity, with its position", async () => {
    const err = await refusal(MINIMAL.replace("One &amp; only", "One &lol9; only"));
    expect(err.message).toBe("The ReqIF file is not valid XML at line 5, column 91: undefined entity.");
    expect(err.problems[0]?.line).toBe(5);
  });

  test("a parameter entity or SYSTEM DOCTYPE without an internal subset is refused the same way", async () => {
    const err = await refusal(
      `<?xml version="1.0"?>\n<!DOCTYPE REQ-IF SYSTEM "http://example.com/reqif.dtd">\n${MINIMAL.split("\n").slice(1).join("\n")}`,
    );
    expect(err.message).toMatch(/at line 2, column \d+: a DOCTYPE declaration is not accepted/);
  });
});

describe("ReqIF import refuses malformed input with line and column", () => {
  test("a mismatched closing tag", async () => {
    const bad = MINIMAL.replace("</SPEC-OBJECTS>", "</SPEC-OBJECT>");
    const err = await refusal(bad);
    // Column 18 is the `>` of `    </SPEC-OBJECT>`, where the parser knew the tag was wrong.
    expect(err.message).toBe("The ReqIF file is not valid XML at line 6, column 18: unexpected close tag.");
    expect(err.problems).toEqual([{ message: "unexpected close tag.", line: 6, column: 18 }]);
  });

  test("an unquoted attribute, a truncated file, an unescaped ampersand", async () => {
    expect((await refusal(MINIMAL.replace('IDENTIFIER="o1"', "IDENTIFIER=o1"))).message).toMatch(
      /at line 5, column \d+: unquoted attribute value/,
    );
    expect((await refusal(MINIMAL.slice(0, MINIMAL.indexOf("</REQ-IF-CONTENT>")))).message).toMatch(
      /not valid XML at line 7, column 2: unclosed tag: REQ-IF-CONTENT/,
    );
    // A stray `&` is found where it is, not at the end of the file it would otherwise swallow.
    expect((await refusal(MINIMAL.replace("&amp;", "& "))).message).toBe(
      "The ReqIF file is not valid XML at line 5, column 86: an `&` that starts no entity reference. Fix: write a literal ampersand as &amp;",
    );
    // Column 86 is the `&` itself.
    const long = MINIMAL.replace("One &amp; only", `One & only${" and more".repeat(2000)}`);
    expect((await refusal(long)).message).toContain(
      "at line 5, column 86: an `&` that starts no entity reference",
    );
  });

  test("positions stay right when the file arrives in small chunks", async () => {
    const bad = new TextEncoder().encode(MINIMAL.replace("</SPEC-OBJECTS>", "</SPEC-OBJECT>"));
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bad.length; i += 7) chunks.push(bad.subarray(i, i + 7));
    await expect(readReqif(chunks)).rejects.toThrow("at line 6, column 18: unexpected close tag");
  });

  test("bytes that are not UTF-8 are refused with the line they are on", async () => {
    const bytes = new TextEncoder().encode(MINIMAL);
    const at = MINIMAL.indexOf("One");
    const broken = new Uint8Array([...bytes.subarray(0, at), 0xff, 0xfe, ...bytes.subarray(at)]);
    const err = await refusal(broken);
    expect(err.message).toMatch(/at line 5, column \d+: the bytes are not valid utf-8/);
  });

  test("a file that is not ReqIF, and an empty one", async () => {
    expect((await refusal("<html><body/></html>")).message).toMatch(
      /line 1, column 6: the root element is <html>, not <REQ-IF>: this is not a ReqIF file/,
    );
    expect((await refusal("")).message).toBe("The ReqIF file is empty or holds no XML element.");
  });

  test("a declared Latin-1 file is decoded as Latin-1; an unknown encoding is refused", async () => {
    const latin1 = MINIMAL.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"').replace(
      "One &amp; only",
      "Caf\u00e9",
    );
    const bytes = Uint8Array.from(latin1, (c) => c.charCodeAt(0));
    const doc = await readReqif([bytes]);
    expect(doc.requirements[0]?.title).toBe("Caf\u00e9");
    const err = await refusal(
      new TextEncoder().encode(MINIMAL.replace('encoding="UTF-8"', 'encoding="X-NOPE"')),
    );
    expect(err.message).toBe(
      'The ReqIF file declares the encoding "X-NOPE", which is not supported. Fix: save it as UTF-8.',
    );
  });
});

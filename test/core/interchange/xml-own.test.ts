/**
 * `own` (xml-stream.ts): the copy the ReqIF reader keeps of every identifier, name and value cut from a
 * file's text. It must be the same string, character for character, at every length and for any UTF-16
 * content (its short path rebuilds the string from its character codes). Whether it shares memory with
 * its source is V8's business and is measured by bench/reqif-server-memory.ts, not asserted here.
 */
import { describe, expect, test } from "vitest";
import { own, readXmlStream } from "../../../src/core/interchange/reqif/xml-stream.js";

describe("own", () => {
  test("returns the same text at every length around its thresholds", () => {
    const source = `${"ab\u00e9\u4e2d\ud83d\ude00\u0000\r\n\t".repeat(80)}`;
    for (const length of [0, 1, 12, 13, 14, 100, 255, 256, 257, 600]) {
      const cut = source.slice(3, 3 + length);
      const copy = own(cut);
      expect(copy).toBe(cut);
      expect(copy.length).toBe(cut.length);
    }
  });

  test("keeps a lone surrogate as it is", () => {
    const cut = `identifier-\ud800-${"x".repeat(20)}`;
    expect(own(cut)).toBe(cut);
  });

  test("attribute values of a streamed document arrive exact", async () => {
    const id = `id-\u00e9\u4e2d-${"0123456789".repeat(30)}`;
    const seen: string[] = [];
    await readXmlStream([`<r><e IDENTIFIER="${id}" SHORT="${id.slice(0, 20)}"/></r>`], {
      open: (e) => {
        if (e.local === "e") seen.push(e.attributes.IDENTIFIER ?? "", e.attributes.SHORT ?? "");
      },
      close: () => {},
      text: () => {},
    });
    expect(seen).toEqual([id, id.slice(0, 20)]);
  });
});

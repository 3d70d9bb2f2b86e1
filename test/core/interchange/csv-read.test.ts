/** The RFC 4180 CSV reader of the interchange CSV format: cells, quoting, line breaks and error positions. */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CsvSyntaxError, parseCsv } from "../../../src/core/interchange/csv-read.js";

const cells = (text: string) => parseCsv(text).map((r) => r.cells);

function failure(text: string): CsvSyntaxError {
  try {
    parseCsv(text);
  } catch (e) {
    if (e instanceof CsvSyntaxError) return e;
    throw e;
  }
  throw new Error(`parsed without error: ${JSON.stringify(text)}`);
}

describe("parseCsv", () => {
  test("reads quoted cells with commas, doubled quotes and line breaks (RFC 4180)", () => {
    expect(cells('a,b,c\r\n"x, y","say ""hi""","two\r\nlines"\r\n')).toEqual([
      ["a", "b", "c"],
      ["x, y", 'say "hi"', "two\r\nlines"],
    ]);
    expect(cells('a,b\r\n"",""\r\n,\r\n')).toEqual([
      ["a", "b"],
      ["", ""],
      ["", ""],
    ]);
  });

  test("accepts CRLF, LF and CR row ends, a missing last row end, a BOM; skips empty lines", () => {
    expect(cells("a,b\n1,2\n")).toEqual([
      ["a", "b"],
      ["1", "2"],
    ]);
    expect(cells("a,b\r1,2\r")).toEqual([
      ["a", "b"],
      ["1", "2"],
    ]);
    expect(cells("\uFEFFa,b\r\n\r\n\n1,2")).toEqual([
      ["a", "b"],
      ["1", "2"],
    ]);
    expect(cells("a,b\r\n1,")).toEqual([
      ["a", "b"],
      ["1", ""],
    ]);
    expect(cells("")).toEqual([]);
    // Spaces are data, not padding.
    expect(cells("a,b\r\n x , y \r\n")[1]).toEqual([" x ", " y "]);
  });

  test("rows know the line they start on, counting breaks inside quoted cells and empty lines", () => {
    const rows = parseCsv('h1,h2\r\n"one\r\ntwo\nthree",x\r\n\r\nlast,y\r\n');
    expect(rows.map((r) => r.line)).toEqual([1, 2, 6]);
  });

  test("a quote inside an unquoted cell names its line and cell", () => {
    const e = failure('a,b\r\nok,1\r\nb"ad,2\r\n');
    expect([e.line, e.column]).toEqual([3, 1]);
    expect(e.message).toMatch(/cell 1 holds a quote .* quote the whole cell and write the quote twice/);
  });

  test("text after a closing quote names its line and cell", () => {
    const e = failure('a,b\r\n1,"multi\r\nline"x\r\n');
    expect([e.line, e.column]).toEqual([3, 2]);
    expect(e.message).toContain('"x" follows its closing quote');
  });

  test("an unclosed quote names the line it was opened on", () => {
    const e = failure('a,b\r\n1,2\r\n3,"never\r\nclosed\r\n');
    expect([e.line, e.column]).toEqual([3, 2]);
    expect(e.message).toContain("opened on line 3 is never closed");
  });

  test("a row with fewer or more cells than the first names its line and the first missing or extra cell", () => {
    const short = failure("a,b,c\r\n1,2,3\r\n1,2\r\n");
    expect([short.line, short.column]).toEqual([3, 3]);
    expect(short.message).toContain("2 cell(s) where the first row has 3");
    const long = failure("a,b\r\n1,2,3\r\n");
    expect([long.line, long.column]).toEqual([2, 3]);
  });

  test("property: any table written with RFC 4180 quoting reads back cell for cell", () => {
    const cell = fc.string({ unit: fc.constantFrom("a", "é", " ", ",", '"', "\r", "\n", "\r\n", "'", "=") });
    const quoteWhenNeeded = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
    const quoteAlways = (v: string) => `"${v.replace(/"/g, '""')}"`;
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 4 })
          .chain((width) =>
            fc.array(fc.array(cell, { minLength: width, maxLength: width }), { minLength: 1, maxLength: 6 }),
          ),
        fc.constantFrom("\r\n", "\n"),
        fc.boolean(),
        (table, rowEnd, always) => {
          // A row of one empty cell is an empty line, which CSV cannot tell from nothing: quote it.
          const quote = (v: string, width: number) =>
            always || (width === 1 && v === "") ? quoteAlways(v) : quoteWhenNeeded(v);
          const text = table.map((row) => row.map((v) => quote(v, row.length)).join(",")).join(rowEnd);
          expect(cells(text)).toEqual(table);
        },
      ),
    );
  });
});

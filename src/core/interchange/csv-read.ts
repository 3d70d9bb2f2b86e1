/**
 * An RFC 4180 CSV reader: comma-separated cells, cells quoted with `"` may hold commas, quotes (doubled) and
 * line breaks; rows end with CRLF, LF or CR; a leading BOM is dropped; empty lines are skipped; every row
 * must have as many cells as the first. It replaced csv-parse (issue 16): its browser build carried its own
 * Buffer and weighed ~51 KiB minified in the Worker, where this file is ~1.
 *
 * Errors are `CsvSyntaxError`s naming the line (1-based, counting every line break, also those inside quoted
 * cells) and the cell's position in its row (1-based), and say how to fix the file.
 */

export interface CsvRow {
  cells: string[];
  /** The line the row starts on. */
  line: number;
}

export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    /** The cell's position in its row, 1-based. */
    readonly column: number,
  ) {
    super(message);
    this.name = "CsvSyntaxError";
  }
}

const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

/** The line breaks between `from` and `to` (CRLF counts once). */
function breaks(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === LF || (c === CR && text.charCodeAt(i + 1) !== LF)) n++;
  }
  return n;
}

/** Reads the whole text; throws a CsvSyntaxError at the first malformed cell or row. */
export function parseCsv(text: string): CsvRow[] {
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  const rows: CsvRow[] = [];
  while (i < n) {
    const first = text.charCodeAt(i);
    if (first === CR || first === LF) {
      i += first === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      line++;
      continue;
    }
    const start = line;
    const cells: string[] = [];
    for (;;) {
      if (text.charCodeAt(i) === QUOTE) {
        const opened = line;
        let value = "";
        let from = i + 1;
        for (;;) {
          const q = text.indexOf('"', from);
          if (q < 0) {
            throw new CsvSyntaxError(
              `the quoted cell opened on line ${opened} is never closed; end it with a quote (")`,
              opened,
              cells.length + 1,
            );
          }
          value += text.slice(from, q);
          line += breaks(text, from, q);
          if (text.charCodeAt(q + 1) !== QUOTE) {
            i = q + 1;
            break;
          }
          value += '"';
          from = q + 2;
        }
        cells.push(value);
        const next = text.charCodeAt(i);
        if (i < n && next !== COMMA && next !== CR && next !== LF) {
          throw new CsvSyntaxError(
            `cell ${cells.length} is quoted but ${JSON.stringify(text[i])} follows its closing quote; a quoted cell ends at the quote, and a quote inside it is written twice ("")`,
            line,
            cells.length,
          );
        }
      } else {
        let j = i;
        for (; j < n; j++) {
          const c = text.charCodeAt(j);
          if (c === COMMA || c === CR || c === LF) break;
          if (c === QUOTE) {
            throw new CsvSyntaxError(
              `cell ${cells.length + 1} holds a quote (") but does not start with one; quote the whole cell and write the quote twice ("")`,
              line,
              cells.length + 1,
            );
          }
        }
        cells.push(text.slice(i, j));
        i = j;
      }
      if (i >= n) break;
      const c = text.charCodeAt(i);
      i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
      if (c !== COMMA) {
        line++;
        break;
      }
    }
    const width = rows[0]?.cells.length ?? cells.length;
    if (cells.length !== width) {
      throw new CsvSyntaxError(
        `the row has ${cells.length} cell(s) where the first row has ${width}; every row needs as many cells as the header (quote a cell that holds a comma)`,
        start,
        Math.min(cells.length, width) + 1,
      );
    }
    rows.push({ cells, line: start });
  }
  return rows;
}

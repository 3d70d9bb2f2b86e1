/**
 * Where a JSON text goes wrong, for error messages that name a line and column (`JSON.parse` names neither
 * portably): the first syntax error of a text JSON.parse refused, and the node at a path of one it accepted.
 * Both walk the text once without building values and without recursion (a deeply nested file cannot
 * overflow the stack). They replaced jsonc-parser in the Worker bundle (issue 16: ~12 KiB minified).
 */

export interface JsonSyntaxProblem {
  /** Offset of the first character that cannot be there. */
  offset: number;
  /** What was expected, e.g. "a value was expected". */
  message: string;
}

const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/** Offset just past the string starting at `i` (a quote), or a problem. */
function endOfString(text: string, i: number): number | JsonSyntaxProblem {
  let j = i + 1;
  for (;;) {
    if (j >= text.length) return { offset: i, message: "the string is never closed" };
    const c = text.charCodeAt(j);
    if (c === 34) return j + 1;
    if (c < 32) return { offset: j, message: "a control character in a string must be escaped" };
    if (c === 92) {
      ESCAPE.lastIndex = j;
      if (!ESCAPE.test(text)) return { offset: j, message: "invalid escape sequence in a string" };
      j = ESCAPE.lastIndex;
    } else j++;
  }
}

/** Offset just past the number, literal or string at `i`, or a problem; objects and arrays are not scalars. */
function endOfScalar(text: string, i: number): number | JsonSyntaxProblem {
  const c = text.charCodeAt(i);
  if (c === 34) return endOfString(text, i);
  for (const word of ["true", "false", "null"]) if (text.startsWith(word, i)) return i + word.length;
  NUMBER.lastIndex = i;
  if ((c === 45 || (c >= 48 && c <= 57)) && NUMBER.test(text)) return NUMBER.lastIndex;
  return {
    offset: i,
    message: i >= text.length ? "a value was expected before the end" : "a value was expected",
  };
}

const skipSpace = (text: string, i: number) => {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
};

/** The first syntax error of a strict JSON text (no comments, no trailing commas), or undefined. */
export function jsonSyntaxProblem(text: string): JsonSyntaxProblem | undefined {
  // Open containers: true for an object, false for an array.
  const open: boolean[] = [];
  let next: "value" | "key" | "after" = "value";
  // Just inside `{` or `[`: the closing bracket may come instead of a key or value.
  let mayClose = false;
  let i = 0;
  for (;;) {
    i = skipSpace(text, i);
    const c = text.charCodeAt(i);
    const inObject = open[open.length - 1];
    if (next !== "after" && mayClose && c === (inObject ? 125 : 93)) {
      open.pop();
      i++;
      next = "after";
    } else if (next === "key") {
      if (c !== 34) return { offset: i, message: "a property name in double quotes was expected" };
      const end = endOfString(text, i);
      if (typeof end !== "number") return end;
      i = skipSpace(text, end);
      if (text.charCodeAt(i) !== 58) return { offset: i, message: "':' was expected" };
      i++;
      next = "value";
    } else if (next === "value") {
      if (c === 123 || c === 91) {
        open.push(c === 123);
        i++;
        next = c === 123 ? "key" : "value";
        mayClose = true;
        continue;
      }
      const end = endOfScalar(text, i);
      if (typeof end !== "number") return end;
      i = end;
      next = "after";
    } else if (open.length === 0) {
      return i < text.length ? { offset: i, message: "the text should end here" } : undefined;
    } else if (c === 44) {
      i++;
      next = inObject ? "key" : "value";
    } else if (c === (inObject ? 125 : 93)) {
      open.pop();
      i++;
    } else {
      return { offset: i, message: `',' or '${inObject ? "}" : "]"}' was expected` };
    }
    mayClose = false;
  }
}

/** Offset just past the value at `i` of a text JSON.parse accepted. */
function skipValue(text: string, i: number): number {
  let depth = 0;
  for (;;) {
    i = skipSpace(text, i);
    const c = text.charCodeAt(i);
    if (c === 123 || c === 91) {
      depth++;
      i++;
    } else if (c === 125 || c === 93) {
      depth--;
      i++;
    } else if (c === 44 || c === 58) {
      i++;
    } else {
      i = endOfScalar(text, i) as number;
    }
    if (depth === 0) return i;
  }
}

/**
 * The offset of the deepest node on `path` (object keys and array indexes) in a text JSON.parse accepted:
 * the node itself when it exists, else its nearest ancestor (a missing field is shown at its object).
 */
export function jsonPathOffset(text: string, path: readonly PropertyKey[]): number {
  let at = skipSpace(text, 0);
  for (const step of path) {
    const c = text.charCodeAt(at);
    if (c !== 123 && c !== 91) return at;
    let i = skipSpace(text, at + 1);
    let index = 0;
    let found = -1;
    while (text.charCodeAt(i) !== (c === 123 ? 125 : 93)) {
      let matches = index === step;
      if (c === 123) {
        const end = endOfString(text, i) as number;
        matches = JSON.parse(text.slice(i, end)) === step;
        i = skipSpace(text, end) + 1;
        i = skipSpace(text, i);
      }
      if (matches) {
        found = i;
        break;
      }
      i = skipSpace(text, skipValue(text, i));
      if (text.charCodeAt(i) === 44) i = skipSpace(text, i + 1);
      index++;
    }
    if (found < 0) return at;
    at = found;
  }
  return at;
}

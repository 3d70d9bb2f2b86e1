/** Locating JSON problems: the first syntax error (agreeing with JSON.parse) and the node at a path. */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { jsonPathOffset, jsonSyntaxProblem } from "../../../src/core/interchange/json-locate.js";

const accepts = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe("jsonSyntaxProblem", () => {
  test("names the offset and what was expected", () => {
    const at = (text: string) => jsonSyntaxProblem(text);
    expect(at('{"a": }')).toEqual({ offset: 6, message: "a value was expected" });
    expect(at('{"a": 1,}')).toEqual({ offset: 8, message: "a property name in double quotes was expected" });
    expect(at("[1, 2,]")).toEqual({ offset: 6, message: "a value was expected" });
    expect(at('{"a" 1}')).toEqual({ offset: 5, message: "':' was expected" });
    expect(at('{"a": 1 "b": 2}')).toEqual({ offset: 8, message: "',' or '}' was expected" });
    expect(at("[1 2]")).toEqual({ offset: 3, message: "',' or ']' was expected" });
    expect(at("[1] x")).toEqual({ offset: 4, message: "the text should end here" });
    expect(at('["abc')).toEqual({ offset: 1, message: "the string is never closed" });
    expect(at('["a\\x"]')).toEqual({ offset: 3, message: "invalid escape sequence in a string" });
    expect(at('["a\nb"]')).toEqual({ offset: 3, message: "a control character in a string must be escaped" });
    expect(at("// c\n{}")?.offset).toBe(0);
    expect(at("")).toEqual({ offset: 0, message: "a value was expected before the end" });
    expect(at('[{"a": [1, {"b": [true, null, -1.5e3]}]}, "x", {}]')).toBeUndefined();
  });

  test("deep nesting does not overflow the stack", () => {
    expect(jsonSyntaxProblem(`${"[".repeat(200_000)}${"]".repeat(200_000)}`)).toBeUndefined();
    expect(jsonSyntaxProblem(`${"[".repeat(200_000)}${"]".repeat(199_999)}`)?.offset).toBe(399_999);
  });

  test("property: reports a problem exactly when JSON.parse refuses the text", () => {
    const mutated = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom("", ",", "}", "]", "{", "[", '"', ":", "x", "0", " ", "\\"))
      .map(([text, at, insert]) => {
        const i = at % (text.length + 1);
        return text.slice(0, i) + insert + text.slice(i + (at % 2));
      });
    fc.assert(
      fc.property(fc.oneof(fc.json(), mutated), (text) => {
        expect(jsonSyntaxProblem(text) === undefined).toBe(accepts(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("jsonPathOffset", () => {
  const text = '{\n "format": "x",\n "epics": [\n  {"title": "a"},\n  {"title": "b", "priority": 9}\n ]\n}';
  test("finds the value at a path of keys and indexes", () => {
    expect(text.slice(jsonPathOffset(text, ["epics", 1, "priority"]))).toMatch(/^9\}/);
    expect(text.slice(jsonPathOffset(text, ["epics", 0, "title"]))).toMatch(/^"a"/);
    expect(text.slice(jsonPathOffset(text, ["epics", 1]))).toMatch(/^\{"title": "b"/);
    expect(jsonPathOffset(text, [])).toBe(0);
  });

  test("a missing key or index is shown at the nearest node that exists", () => {
    expect(text.slice(jsonPathOffset(text, ["epics", 0, "priority"]))).toMatch(/^\{"title": "a"\}/);
    expect(text.slice(jsonPathOffset(text, ["epics", 5, "title"]))).toMatch(/^\[\n/);
    expect(text.slice(jsonPathOffset(text, ["format", "deeper"]))).toMatch(/^"x"/);
  });

  test("property: the offset found for every path of a document is where that value is written", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 2), (value, indent) => {
        const doc = JSON.stringify(value, null, indent);
        const walk = (v: unknown, path: (string | number)[]) => {
          const written = JSON.stringify(v, null, indent);
          // Compact, the value is written exactly so; indented, its first line is (deeper lines move right).
          const expected = indent === 0 ? written : (written.split("\n")[0] as string);
          expect(doc.slice(jsonPathOffset(doc, path)).startsWith(expected), JSON.stringify(path)).toBe(true);
          if (Array.isArray(v)) for (const [i, x] of v.entries()) walk(x, [...path, i]);
          else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
        };
        walk(value, []);
      }),
      { numRuns: 300 },
    );
  });
});

/**
 * The protocol core uses the MCP SDK for its types, schemas and transports only (issue 12 item 1): no SDK
 * `Server` or `Protocol` to subclass or patch (their internals change between releases, and a subclass
 * decided how our errors read), and no request rewritten to get past a transport's checks.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

const FORBIDDEN: [RegExp, string][] = [
  [/\.prototype\.[A-Za-z_$]+\.(call|apply)\(/, "a method borrowed from a prototype"],
  [/@modelcontextprotocol\/sdk\/shared\/protocol(\.js)?["']/, "the SDK's Protocol class"],
  [/@modelcontextprotocol\/sdk\/server\/index(\.js)?["']/, "the SDK's Server class"],
  [/\bextends\s+(Server|Protocol|McpServer)\b/, "a subclass of an SDK server"],
  [/\.set\(\s*["']accept["']/i, "a rewritten Accept header"],
];

describe("SDK use", () => {
  it("no source file subclasses or patches SDK internals, or rewrites a request's Accept header", () => {
    const found: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const code = readFileSync(file, "utf8");
      for (const [pattern, what] of FORBIDDEN) {
        if (pattern.test(code)) found.push(`${relative(SRC, file)}: ${what}`);
      }
    }
    expect(found).toEqual([]);
  });

  it("the patterns catch what they are for", () => {
    const hits = (code: string) => FORBIDDEN.filter(([p]) => p.test(code)).map(([, what]) => what);
    expect(hits("Protocol.prototype.setRequestHandler.call(this, a, b)")).toEqual([
      "a method borrowed from a prototype",
    ]);
    expect(hits('import { Server } from "@modelcontextprotocol/sdk/server/index.js";')).toEqual([
      "the SDK's Server class",
    ]);
    expect(hits("class RegistryServer extends Server {")).toEqual(["a subclass of an SDK server"]);
    expect(hits('headers.set("accept", "application/json, text/event-stream");')).toEqual([
      "a rewritten Accept header",
    ]);
  });
});

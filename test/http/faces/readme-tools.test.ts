/** The README's tool tables are generated from the registry; this fails when they are stale (CI gate). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  BEGIN,
  END,
  expectedReadme,
  firstSentence,
  markers,
  README,
  withGeneratedDocs,
} from "../../../scripts/gen-tool-table.js";

describe("README tool tables", () => {
  it("match the hosted registry and every companion toolset (run `npm run docs:tools` when this fails)", () => {
    const current = readFileSync(README, "utf8");
    expect(current).toContain(BEGIN);
    expect(current).toContain("| `get_user_story_requirements` | backlog | read |");
    expect(current).toContain("| `reqlix_get_requirement` | read |");
    expect(current).toContain("| `search_docs` | read |");
    expect(current).toContain("| `ixchel_create` | write |");
    expect(current).toContain("| `trace_file` | read |");
    expect(current, "README.md is stale: run `npm run docs:tools`").toBe(expectedReadme(current));
  });

  it("would notice a stale table", () => {
    const current = readFileSync(README, "utf8");
    const stale = withGeneratedDocs(current, `${BEGIN}\n| \`old_tool\` | read | Gone. | — |\n${END}`);
    expect(expectedReadme(stale)).not.toBe(stale);
    expect(() => withGeneratedDocs("no markers here", "x")).toThrow("must contain the markers");
    const { begin, end } = markers("trace");
    const staleTrace = withGeneratedDocs(
      current,
      `${begin}\n| \`trace_gone\` | read | Gone. | — |\n${end}`,
      "trace",
    );
    expect(expectedReadme(staleTrace)).not.toBe(staleTrace);
  });

  it("keeps the first sentence whole across 'e.g.' and parentheses", () => {
    expect(firstSentence("Read one (e.g. EP-001). Then more.")).toBe("Read one (e.g. EP-001).");
    expect(firstSentence("List types, e.g. Functional. Use them.")).toBe("List types, e.g. Functional.");
    expect(firstSentence("No period at all")).toBe("No period at all");
  });
});

import { describe, expect, it } from "vitest";
import { navigationInstruction } from "../../src/core/docsets.js";
import {
  type ConfigParseResult,
  catalogFromConfig,
  formatConfigProblems,
  parseDocsetsConfig,
} from "../../src/core/docsets-config.js";

function problems(result: ConfigParseResult) {
  if (result.ok) throw new Error(`expected problems, got ${JSON.stringify(result.config)}`);
  return result;
}

function config(result: ConfigParseResult) {
  if (!result.ok) throw new Error(`expected a config, got ${formatConfigProblems(result.problems)}`);
  return result.config;
}

describe("parseDocsetsConfig", () => {
  it("REQ-4: loads docsets with version and aliases", () => {
    const c = config(
      parseDocsetsConfig(`docs_root: docs
template: "T {keywords}"
docsets:
  - name: react
    version: "18.2"
    aliases: [reactjs, react-dom]
    template: "R {local_path}"
    description: React docs
  - name: vue
    version: 3.4
`),
    );
    expect(c).toEqual({
      docs_root: "docs",
      template: "T {keywords}",
      docsets: [
        {
          name: "react",
          version: "18.2",
          aliases: ["reactjs", "react-dom"],
          template: "R {local_path}",
          description: "React docs",
        },
        { name: "vue", version: "3.4", aliases: [] },
      ],
    });
  });

  it("keeps a version as written: 18.10 is not the number 18.1", () => {
    const c = config(
      parseDocsetsConfig("docsets:\n  - name: react\n    version: 18.10\n    aliases: [2019]\n"),
    );
    expect(c.docsets[0]).toEqual({ name: "react", version: "18.10", aliases: ["2019"] });
  });

  it("REQ-4: ignores unknown properties at every level", () => {
    const c = config(
      parseDocsetsConfig(`owner: me
extras: {a: 1}
docsets:
  - name: react
    version: "18.2"
    homepage: https://react.dev
    tags: [ui]
`),
    );
    expect(c.docsets).toEqual([{ name: "react", version: "18.2", aliases: [] }]);
  });

  it("REQ-4: a syntax error reports line and column", () => {
    const r = problems(parseDocsetsConfig("docsets:\n  - name: react\n    version: [18.2\n  - name: vue\n"));
    expect(r.kind).toBe("syntax");
    expect(r.problems[0]?.line).toBeGreaterThanOrEqual(3);
    expect(r.problems[0]?.column).toBeGreaterThan(0);
    expect(formatConfigProblems(r.problems)).toMatch(/^- line \d+, column \d+: /);
  });

  it("REQ-4: a tab-indented file fails with the line of the tab", () => {
    const r = problems(parseDocsetsConfig("docsets:\n\t- name: react\n"));
    expect(r.kind).toBe("syntax");
    expect(r.problems[0]?.line).toBe(2);
  });

  it("REQ-4: a duplicated key is a syntax problem with its line", () => {
    const r = problems(parseDocsetsConfig("docsets: []\ndocsets: []\n"));
    expect(r.problems[0]).toMatchObject({ line: 2, column: 1 });
  });

  it("REQ-4: a missing docsets section is a validation error that shows an example", () => {
    const r = problems(parseDocsetsConfig("docs_root: docs\n"));
    expect(r.kind).toBe("invalid");
    expect(r.problems[0]?.message).toContain("missing the `docsets` section");
    expect(r.problems[0]?.message).toContain("- name: react");
  });

  it("an empty file is a missing docsets section", () => {
    expect(problems(parseDocsetsConfig("")).problems[0]?.message).toContain("missing the `docsets` section");
    expect(problems(parseDocsetsConfig("# only a comment\n")).problems[0]?.message).toContain("docsets");
  });

  it("REQ-2: `docsets: []` and a bare `docsets:` both mean none configured", () => {
    expect(config(parseDocsetsConfig("docsets: []\n")).docsets).toEqual([]);
    expect(config(parseDocsetsConfig("docsets:\n")).docsets).toEqual([]);
  });

  it("rejects a file that is a list, and docsets that is a mapping", () => {
    expect(problems(parseDocsetsConfig("- name: react\n")).problems[0]?.message).toContain(
      "must be a mapping",
    );
    expect(problems(parseDocsetsConfig("docsets:\n  react: 18\n")).problems[0]?.message).toContain(
      "must be a list",
    );
  });

  it("REQ-7: an invalid docset name is reported with its line, column and path", () => {
    const r = problems(parseDocsetsConfig("docsets:\n  - name: React\n    version: '18.2'\n"));
    expect(r.kind).toBe("invalid");
    expect(r.problems).toEqual([
      {
        path: "docsets[0].name",
        line: 2,
        column: 11,
        message: expect.stringContaining('docsets[0].name "React" has invalid characters'),
      },
    ]);
  });

  it("reports every problem at once: missing name, missing version, bad alias, bad version", () => {
    const r = problems(
      parseDocsetsConfig(`docsets:
  - version: "1"
  - name: vue
  - name: x
    version: ../1
    aliases: [Bad Alias]
  - just a string
`),
    );
    const text = formatConfigProblems(r.problems);
    expect(r.problems).toHaveLength(5);
    expect(text).toContain("docsets[0] has no name");
    expect(text).toContain("docsets[1] (vue) has no version");
    expect(text).toContain("docsets[2].version");
    expect(text).toContain("alias docsets[2].aliases[0]");
    expect(text).toContain("docsets[3] must be a mapping");
  });

  it("a name or alias used by two docsets is an error naming both", () => {
    const r = problems(
      parseDocsetsConfig(`docsets:
  - name: react
    version: "17"
  - name: react
    version: "18"
  - name: preact
    version: "10"
    aliases: [react]
`),
    );
    expect(r.problems.map((p) => p.message)).toEqual([
      expect.stringContaining('"react" (the name of react 18) is already used by react 17'),
      expect.stringContaining('"react" (the alias of preact 10) is already used by react 17'),
    ]);
    expect(r.problems[0]?.line).toBe(4);
  });

  it("a conflict is reported at the YAML item it comes from, even after an invalid item", () => {
    const r = problems(
      parseDocsetsConfig(`docsets:
  - name: a
    version: "1"
  - name: Bad
    version: "1"
  - name: b
    version: "2"
    aliases: [a]
`),
    );
    expect(r.problems.map((p) => [p.path, p.line])).toEqual([
      ["docsets[1].name", 4],
      ["docsets[2]", 6],
    ]);
  });

  it("an alias equal to the docset's own name, or repeated, is dropped quietly", () => {
    const c = config(parseDocsetsConfig("docsets:\n  - name: a\n    version: '1'\n    aliases: [a, b, b]\n"));
    expect(c.docsets[0]?.aliases).toEqual(["b"]);
  });

  it("a single alias without brackets is a list of one; null aliases are none", () => {
    const c = config(
      parseDocsetsConfig(
        "docsets:\n  - name: a\n    version: '1'\n    aliases: aa\n  - name: b\n    version: '1'\n    aliases:\n",
      ),
    );
    expect(c.docsets.map((d) => d.aliases)).toEqual([["aa"], []]);
  });

  it("anchors and aliases of YAML work like the values they name", () => {
    const c = config(parseDocsetsConfig("v: &v '18.2'\ndocsets:\n  - name: a\n    version: *v\n"));
    expect(c.docsets[0]?.version).toBe("18.2");
  });

  it("an empty template is an error that says how to get the default", () => {
    const r = problems(parseDocsetsConfig("template: ''\ndocsets: []\n"));
    expect(r.problems[0]?.message).toContain("remove the line to use the default template");
  });
});

describe("catalogFromConfig", () => {
  it("REQ-5: docs_root defaults to .knowledge/docs", () => {
    const c = catalogFromConfig(
      config(parseDocsetsConfig("docsets:\n  - name: react\n    version: '18.2'\n")),
      "/p/.knowledge",
    );
    expect(c.get("react").local_path).toBe("/p/.knowledge/docs/react-18.2/");
  });

  it("REQ-5: a relative docs_root resolves against the .knowledge folder; an absolute one is kept", () => {
    const rel = catalogFromConfig(
      config(parseDocsetsConfig("docs_root: ../vendor/docs\ndocsets:\n  - {name: a, version: '1'}\n")),
      "/p/.knowledge",
    );
    expect(rel.get("a").local_path).toBe("/p/vendor/docs/a-1/");
    const abs = catalogFromConfig(
      config(parseDocsetsConfig("docs_root: /opt/docs\ndocsets:\n  - {name: a, version: '1'}\n")),
      "/p/.knowledge",
    );
    expect(abs.get("a").local_path).toBe("/opt/docs/a-1/");
  });

  it("REQ-5: forward slashes on Windows-style folders", () => {
    const c = catalogFromConfig(
      config(parseDocsetsConfig("docs_root: docs\\\\sub\ndocsets:\n  - {name: a, version: '1'}\n")),
      "C:\\p\\.knowledge",
    );
    expect(c.get("a").local_path).toBe("C:/p/.knowledge/docs/sub/a-1/");
  });

  it("REQ-6: the docset template wins over the file's template, which wins over the default", () => {
    const c = catalogFromConfig(
      config(
        parseDocsetsConfig(`template: "ALL {docset}"
docsets:
  - {name: a, version: '1', template: "OWN {docset} {version} {unknown}"}
  - {name: b, version: '2'}
`),
      ),
      "/p/.knowledge",
    );
    expect(navigationInstruction(c.get("a"), ["k"], ["g"])).toBe("OWN a 1 {unknown}");
    expect(navigationInstruction(c.get("b"), ["k"], ["g"])).toBe("ALL b");
  });
});

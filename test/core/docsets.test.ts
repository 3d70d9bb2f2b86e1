import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compileTemplate,
  DEFAULT_TEMPLATE,
  DocsetCatalog,
  docsetLocalPath,
  docsetNameProblem,
  docsetVersionProblem,
  findNameConflicts,
  joinKeywords,
  navigationInstruction,
  renderTemplate,
} from "../../src/core/docsets.js";
import { asFolder, isAbsolutePath, normalizePath, resolvePath } from "../../src/core/docsets-path.js";
import { docsetDefinitionInput, searchDocsInput } from "../../src/core/docsets-schemas.js";
import { isDomainError } from "../../src/core/errors.js";

const values = {
  keywords: "a, b",
  generalized_keywords: "c",
  local_path: "/d/x-1/",
  docset: "x",
  version: "1",
};

describe("docset names and versions", () => {
  it.each(["react", "vue3", "a", "0", "next.js", "lodash_es", "react-dom", "a.b-c_d"])(
    "accepts %s",
    (name) => {
      expect(docsetNameProblem(name)).toBeUndefined();
    },
  );

  it.each(["React", "-react", ".react", "_x", "re act", "re/act", "réact", "", "x".repeat(101)])(
    "REQ-7: rejects %j with a reason",
    (name) => {
      expect(docsetNameProblem(name)).toMatch(/\w/);
    },
  );

  it("suggests the lowercase form of a name with capitals", () => {
    expect(docsetNameProblem("React")).toContain('did you mean "react"');
  });

  it("the name rule is exactly [a-z0-9][a-z0-9._-]* (up to 100 characters)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (s) => {
        expect(docsetNameProblem(s) === undefined).toBe(/^[a-z0-9][a-z0-9._-]*$/.test(s));
      }),
    );
  });

  it.each(["18.2", "1", "v1.0.0-beta.1", "latest", "1.0+build.5", "2024_01"])("accepts version %s", (v) => {
    expect(docsetVersionProblem(v)).toBeUndefined();
  });

  it.each(["", "../etc", "1/2", "1\\2", " 1", "1 2", "a..b", ".1"])(
    "rejects version %j (it becomes a folder name)",
    (v) => {
      expect(docsetVersionProblem(v)).toMatch(/\w/);
    },
  );
});

describe("paths", () => {
  it.each([
    ["/a/b/../c/./d/", "/a/c/d"],
    ["a//b", "a/b"],
    ["C:\\docs\\..\\kb", "C:/kb"],
    ["c:/x", "C:/x"],
    ["\\\\server\\share\\docs", "//server/share/docs"],
    ["../../x", "../../x"],
    ["a/../../x", "../x"],
    ["/..", "/"],
    [".", "."],
    ["./", "."],
  ])("normalizes %j to %j", (input, expected) => {
    expect(normalizePath(input)).toBe(expected);
  });

  it("knows absolute paths on every OS", () => {
    expect(isAbsolutePath("/x")).toBe(true);
    expect(isAbsolutePath("C:\\x")).toBe(true);
    expect(isAbsolutePath("\\\\srv\\x")).toBe(true);
    expect(isAbsolutePath("docs")).toBe(false);
    expect(isAbsolutePath("./docs")).toBe(false);
  });

  it("resolves relative paths against a base and keeps absolute ones", () => {
    expect(resolvePath("/p/.knowledge", "docs")).toBe("/p/.knowledge/docs");
    expect(resolvePath("/p/.knowledge", "../shared/docs")).toBe("/p/shared/docs");
    expect(resolvePath("/p/.knowledge", "/opt/docs")).toBe("/opt/docs");
    expect(resolvePath("C:\\p\\.knowledge", "docs")).toBe("C:/p/.knowledge/docs");
    expect(resolvePath("/p/.knowledge", "D:\\docs")).toBe("D:/docs");
  });

  it("REQ-5: local_path is {docs_root}/{name}-{version}/", () => {
    expect(docsetLocalPath(".knowledge/docs", "react", "18.2")).toBe(".knowledge/docs/react-18.2/");
    expect(docsetLocalPath("/p/.knowledge/docs/", "react", "18.2")).toBe("/p/.knowledge/docs/react-18.2/");
  });

  it("REQ-5: local_path uses forward slashes whatever the OS wrote", () => {
    expect(docsetLocalPath("C:\\work\\proj\\.knowledge\\docs", "react", "18.2")).toBe(
      "C:/work/proj/.knowledge/docs/react-18.2/",
    );
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", "..", ".", "", "c d"), { maxLength: 8 }),
        fc.boolean(),
        (parts, win) => {
          const root = parts.join(win ? "\\" : "/");
          const path = docsetLocalPath(root, "x", "1");
          expect(path).not.toContain("\\");
          expect(path.endsWith("x-1/")).toBe(true);
          expect(path.slice(2)).not.toContain("//"); // a leading "//" is a UNC share
        },
      ),
    );
  });

  it("a root folder as docs_root gives /name-version/, never a UNC-looking //name-version/", () => {
    expect(docsetLocalPath("/", "react", "18.2")).toBe("/react-18.2/");
    expect(docsetLocalPath("C:\\", "react", "18.2")).toBe("C:/react-18.2/");
    expect(resolvePath("/", "docs")).toBe("/docs");
    expect(docsetLocalPath(".", "react", "18.2")).toBe("react-18.2/");
  });

  it("asFolder adds exactly one trailing slash", () => {
    expect(asFolder("/a/b/")).toBe("/a/b/");
    expect(asFolder("/a/b")).toBe("/a/b/");
    expect(asFolder("/")).toBe("/");
  });
});

describe("templates", () => {
  it("REQ-1: the default template is the spec's sentence, word for word", () => {
    expect(DEFAULT_TEMPLATE).toBe(
      "Search for '{keywords}' in folder {local_path}. Use your normal text search tools to do this. If the search results don't help you, try to find '{generalized_keywords}'. If this still doesn't help, ask the user to rephrase it.",
    );
  });

  it("REQ-6: substitutes {keywords}, {generalized_keywords}, {local_path}, {docset} and {version}", () => {
    const t = compileTemplate(
      "{docset}@{version} in {local_path}: {keywords} / {generalized_keywords} {keywords}",
    );
    expect(renderTemplate(t, values)).toBe("x@1 in /d/x-1/: a, b / c a, b");
  });

  it("REQ-6: leaves unknown variables, double braces' outer braces and lone braces as written", () => {
    const t = compileTemplate("{unknown} {{keywords}} {KEYWORDS} { keywords } {keywords");
    expect(renderTemplate(t, values)).toBe("{unknown} {a, b} {KEYWORDS} { keywords } {keywords");
  });

  it("REQ-6: substitutes once (a value holding {version} is not expanded again)", () => {
    const t = compileTemplate("{keywords}");
    expect(renderTemplate(t, { ...values, keywords: "{version}" })).toBe("{version}");
  });

  it("REQ-6: a template without variables renders as written; any text round-trips with no known variable", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const clean = s.replace(/\{(keywords|generalized_keywords|local_path|docset|version)\}/g, "");
        expect(renderTemplate(compileTemplate(clean), values)).toBe(clean);
      }),
    );
  });

  it("REQ-6: joins keywords with comma and space", () => {
    expect(joinKeywords(["useEffect", "cleanup function", "deps"])).toBe("useEffect, cleanup function, deps");
  });
});

describe("DocsetCatalog", () => {
  const catalog = new DocsetCatalog(
    [
      { name: "react", version: "18.2", aliases: ["reactjs"] },
      { name: "vue", version: "3.4", template: "Look in {local_path} for {keywords} ({docset} {version})" },
    ],
    "/p/.knowledge/docs",
  );

  it("REQ-1: finds a docset by name or alias", () => {
    expect(catalog.get("react").name).toBe("react");
    expect(catalog.get("reactjs").name).toBe("react");
  });

  it("REQ-1 / REQ-7: an unknown docset is not_found and lists names and aliases", () => {
    let caught: unknown;
    try {
      catalog.get("angular");
    } catch (error) {
      caught = error;
    }
    expect(isDomainError(caught)).toBe(true);
    if (!isDomainError(caught)) return;
    expect(caught.code).toBe("not_found");
    expect(caught.message).toBe(
      'Unknown docset "angular". Available docsets: react (aliases: reactjs), vue. Call search_docs again with one of these names or aliases.',
    );
    expect(caught.details.available).toEqual([
      { name: "react", aliases: ["reactjs"] },
      { name: "vue", aliases: [] },
    ]);
  });

  it("REQ-6: default template unless the docset has its own", () => {
    expect(navigationInstruction(catalog.get("react"), ["hooks", "state"], ["react"])).toBe(
      "Search for 'hooks, state' in folder /p/.knowledge/docs/react-18.2/. Use your normal text search tools to do this. If the search results don't help you, try to find 'react'. If this still doesn't help, ask the user to rephrase it.",
    );
    expect(navigationInstruction(catalog.get("vue"), ["ref"], ["reactivity"])).toBe(
      "Look in /p/.knowledge/docs/vue-3.4/ for ref (vue 3.4)",
    );
  });

  it("REQ-2: summaries carry name, version, aliases and local_path", () => {
    expect(catalog.summaries).toEqual([
      { name: "react", version: "18.2", aliases: ["reactjs"], local_path: "/p/.knowledge/docs/react-18.2/" },
      { name: "vue", version: "3.4", aliases: [], local_path: "/p/.knowledge/docs/vue-3.4/" },
    ]);
  });

  it("a catalog-wide template applies to docsets without their own", () => {
    const c = new DocsetCatalog([{ name: "a", version: "1" }], "docs", "{docset} at {local_path}");
    expect(navigationInstruction(c.get("a"), ["k"], ["g"])).toBe("a at docs/a-1/");
  });
});

describe("search_docs arguments", () => {
  const ok = { docset: "react", keywords: ["hooks"], generalized_keywords: ["react"] };
  const messages = (input: unknown) => {
    const r = searchDocsInput.safeParse(input);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };

  it("accepts a valid call and trims keywords", () => {
    const r = searchDocsInput.parse({ ...ok, keywords: ["  hooks "] });
    expect(r.keywords).toEqual(["hooks"]);
  });

  it("REQ-1: empty keywords is a validation error", () => {
    expect(messages({ ...ok, keywords: [] })).toEqual([
      'keywords: empty list; give at least one keyword, e.g. ["useEffect"]',
    ]);
  });

  it("REQ-7: more than 20 keywords, or one over 100 characters, is a validation error", () => {
    expect(messages({ ...ok, keywords: Array.from({ length: 21 }, (_, i) => `k${i}`) })).toEqual([
      "keywords: 21 items; at most 20 are allowed: keep the most telling ones",
    ]);
    expect(messages({ ...ok, keywords: Array.from({ length: 20 }, (_, i) => `k${i}`) })).toEqual([]);
    expect(messages({ ...ok, keywords: ["x".repeat(101)] })).toEqual([
      "keywords.0: keyword of 101 characters; at most 100 are allowed: use a shorter word or phrase",
    ]);
    expect(messages({ ...ok, keywords: ["x".repeat(100)] })).toEqual([]);
    expect(messages({ ...ok, generalized_keywords: ["  "] })).toEqual([
      "generalized_keywords.0: blank generalized keyword; give a word or short phrase",
    ]);
  });

  it("REQ-7: a docset name with invalid characters is a validation error", () => {
    expect(messages({ ...ok, docset: "Re act" })[0]).toMatch(/^docset: "Re act" has invalid characters/);
  });
});

describe("docset definitions (shared with the hosted register_docset)", () => {
  it("finds every name or alias that would pick two docsets", () => {
    expect(
      findNameConflicts([
        { name: "react", aliases: ["r"] },
        { name: "preact", aliases: ["r", "react"] },
        { name: "react" },
      ]),
    ).toEqual([
      { index: 1, key: "r", role: "alias", ownerIndex: 0 },
      { index: 1, key: "react", role: "alias", ownerIndex: 0 },
      { index: 2, key: "react", role: "name", ownerIndex: 0 },
    ]);
    expect(findNameConflicts([{ name: "a", aliases: ["a"] }])).toEqual([]); // its own name: harmless
  });

  it("validates a definition with the config's rules", () => {
    expect(docsetDefinitionInput.parse({ name: "react", version: "18.2", aliases: ["reactjs"] })).toEqual({
      name: "react",
      version: "18.2",
      aliases: ["reactjs"],
    });
    const bad = docsetDefinitionInput.safeParse({
      name: "React",
      version: "../1",
      aliases: ["Bad"],
      template: " ",
    });
    expect(bad.success).toBe(false);
    const fields = bad.success ? [] : bad.error.issues.map((i) => i.path.join("."));
    expect(fields).toEqual(["name", "version", "aliases.0", "template"]);
  });
});

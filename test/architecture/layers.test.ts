/**
 * The layer rules of docs/ARCHITECTURE.md ("Layers"), checked over every source file's imports, so a change
 * that crosses a layer fails here rather than in review.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Every module specifier a file imports or re-exports, statically or dynamically. */
function importsOf(code: string): string[] {
  const found = new Set<string>();
  const patterns = [
    /^\s*(?:import|export)\s[^;]*?\sfrom\s*["']([^"']+)["']/gms,
    /^\s*import\s*["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of code.matchAll(pattern)) found.add(m[1] as string);
  return [...found];
}

/** The layer of a file under src/: its top folder, or "entry" for src/*.ts. */
function layerOf(file: string): string {
  const rel = relative(SRC, file).split("/");
  return rel.length === 1 ? "entry" : (rel[0] as string);
}

/**
 * Which of our layers each layer may import, and which packages it must not use (or, for core/, the only
 * packages it may use).
 */
const RULES: Record<string, { layers: string[]; forbiddenPackages?: RegExp; onlyPackages?: RegExp }> = {
  // Pure domain: no I/O, no framework; parsers and schema only.
  core: {
    layers: ["core"],
    onlyPackages: /^(zod|yaml|diff|saxes|@noble\/hashes)(\/|$)/,
  },
  db: { layers: ["core", "db"], forbiddenPackages: /^(hono|@modelcontextprotocol)/ },
  hosted: { layers: ["core", "db", "hosted"], forbiddenPackages: /^(hono|@modelcontextprotocol)/ },
  protocol: { layers: ["core", "protocol"], forbiddenPackages: /^(hono|drizzle-orm|@libsql|libsql)/ },
  http: { layers: ["core", "db", "hosted", "protocol", "http"] },
  local: {
    layers: ["core", "protocol", "local"],
    forbiddenPackages: /^(hono|drizzle-orm|@libsql|libsql|@hono)/,
  },
  cli: { layers: ["core", "db", "cli"] },
  // The web app reaches data only through the hosted registry (web/tools.ts); from db/ it may use its own
  // sessions table and the Database type, nothing else (checked below).
  web: {
    layers: ["core", "db", "hosted", "protocol", "http", "web"],
    forbiddenPackages: /^(drizzle-orm|@libsql|libsql|@modelcontextprotocol)/,
  },
  // Bundle-time stand-ins reached only through wrangler.toml's [alias] table: they stand alone.
  "worker-stubs": { layers: [], forbiddenPackages: /^(?!zod\/)/ },
  entry: { layers: ["core", "db", "hosted", "protocol", "http", "web", "entry"] },
};

describe("layer rules (docs/ARCHITECTURE.md)", () => {
  const files = sourceFiles(SRC);

  it("every folder under src/ has a rule", () => {
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) expect(Object.keys(RULES), relative(SRC, file)).toContain(layerOf(file));
  });

  it("no file imports a layer it may not, nor a package its layer must not use", () => {
    const broken: string[] = [];
    for (const file of files) {
      const layer = layerOf(file);
      const rule = RULES[layer];
      if (!rule) continue;
      for (const spec of importsOf(readFileSync(file, "utf8"))) {
        const where = `${relative(SRC, file)} imports ${spec}`;
        if (spec.startsWith(".")) {
          const target = resolve(dirname(file), spec);
          // An entry may read the package's own version; nothing else reaches outside src/.
          const packageJson = layer === "entry" && target === resolve(SRC, "../package.json");
          if (!target.startsWith(SRC) && !packageJson) {
            broken.push(`${where} (outside src/)`);
            continue;
          }
          if (packageJson) continue;
          const to = layerOf(target.endsWith(".js") ? target.replace(/\.js$/, ".ts") : target);
          if (!rule.layers.includes(to)) broken.push(`${where} (${layer} → ${to})`);
        } else if (
          rule.forbiddenPackages?.test(spec) ||
          (rule.onlyPackages && !rule.onlyPackages.test(spec))
        ) {
          broken.push(`${where} (a package ${layer}/ must not use)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("the web app uses no repository but its sessions: everything else goes through the registry", () => {
    // Sign-in (issue 12 item 4) also reads users' credentials and memberships, accepts invitations and
    // remembers the browsers a password signed in from (device cookies).
    const allowed = new Set([
      "db/sessions.repo.ts",
      "db/database.ts",
      "db/credentials.repo.ts",
      "db/account-ops.ts",
      "db/trusted-devices.repo.ts",
    ]);
    const broken: string[] = [];
    for (const file of files.filter((f) => layerOf(f) === "web")) {
      for (const spec of importsOf(readFileSync(file, "utf8"))) {
        if (!spec.startsWith(".")) continue;
        const target = relative(SRC, resolve(dirname(file), spec)).replace(/\.js$/, ".ts");
        if (target.startsWith("db/") && !allowed.has(target))
          broken.push(`${relative(SRC, file)} imports ${spec}`);
      }
    }
    expect(files.some((f) => layerOf(f) === "web")).toBe(true);
    expect(broken).toEqual([]);
  });

  it("the rules name exactly the layers docs/ARCHITECTURE.md lists under src/", () => {
    const doc = readFileSync(resolve(SRC, "../docs/ARCHITECTURE.md"), "utf8");
    const block = doc.slice(doc.indexOf("## Layers"), doc.indexOf("Import rules"));
    const documented = [...block.matchAll(/^ {2}([a-z-]+)\/\s/gm)].map((m) => m[1] as string);
    const folders = new Set(files.map(layerOf).filter((l) => l !== "entry"));
    // worker-stubs/ is a bundling aid described under "Runtime facts", not a layer of the design.
    expect(documented.sort()).toEqual([...folders].filter((l) => l !== "worker-stubs").sort());
    expect(Object.keys(RULES).sort()).toEqual([...folders, "entry"].sort());
  });

  it("the rules forbid what the doc forbids: protocol/ no database, local/ no server parts, lower layers no higher", () => {
    expect(RULES.protocol?.layers).not.toContain("db");
    expect(RULES.protocol?.forbiddenPackages?.test("drizzle-orm")).toBe(true);
    expect(RULES.protocol?.forbiddenPackages?.test("@libsql/client")).toBe(true);
    for (const higher of ["db", "http", "hosted", "web"]) expect(RULES.local?.layers).not.toContain(higher);
    for (const higher of ["hosted", "protocol", "http", "web", "cli"]) {
      expect(RULES.core?.layers).not.toContain(higher);
      expect(RULES.db?.layers).not.toContain(higher);
    }
    for (const higher of ["protocol", "http", "web", "cli"])
      expect(RULES.hosted?.layers).not.toContain(higher);
    expect(RULES.core?.onlyPackages?.test("node:fs")).toBe(false);
    expect(RULES.core?.onlyPackages?.test("hono")).toBe(false);
  });

  it("AuthInfo (who is calling) is defined once, in core/auth-info.ts", () => {
    const definitions = files.filter((f) =>
      /^\s*export\s+(interface\s+AuthInfo\b|type\s+AuthInfo\s*=)/m.test(readFileSync(f, "utf8")),
    );
    expect(definitions.map((f) => relative(SRC, f))).toEqual(["core/auth-info.ts"]);
  });

  it("the checker sees imports in all their forms", () => {
    expect(
      importsOf(
        'import { a } from "./a.js";\nimport type {\n  B,\n} from "../db/b.js";\nexport { c } from "./c.js";\nimport "./d.js";\nconst e = await import("./e.js");',
      ).sort(),
    ).toEqual(["../db/b.js", "./a.js", "./c.js", "./d.js", "./e.js"]);
  });
});

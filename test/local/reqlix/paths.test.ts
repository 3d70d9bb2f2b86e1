import { lstat, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { categoryPath, resolveRequirementsDir } from "../../../src/local/reqlix/paths.js";
import {
  getCategories,
  getInstructions,
  insertRequirement,
} from "../../../src/local/reqlix/requirements-store.js";
import { tempDir } from "../../helpers/companion.js";

let project: { path: string; cleanup(): Promise<void> };
let outside: { path: string; cleanup(): Promise<void> };
beforeEach(async () => {
  project = await tempDir("reqlix-paths-");
  outside = await tempDir("reqlix-outside-");
});
afterEach(async () => {
  await project.cleanup();
  await outside.cleanup();
});

describe("project_root", () => {
  it("must be absolute, existing and a directory", async () => {
    await expect(resolveRequirementsDir("relative/path", {})).rejects.toThrow(/must be an absolute path/);
    await expect(resolveRequirementsDir(join(project.path, "nope"), {})).rejects.toThrow(/does not exist/);
    await writeFile(join(project.path, "file.txt"), "x");
    await expect(resolveRequirementsDir(join(project.path, "file.txt"), {})).rejects.toThrow(
      /is not a directory/,
    );
  });
});

describe("requirements directory (G.GI.3/G.GI.4)", () => {
  it("creates docs/development/requirements/AGENTS.md with the placeholder when nothing is found", async () => {
    const rd = await resolveRequirementsDir(project.path, {});
    expect(rd.created).toBe(true);
    expect(rd.relPath).toBe("docs/development/requirements");
    const agents = await readFile(join(project.path, "docs/development/requirements/AGENTS.md"), "utf8");
    expect(agents).toContain("5. Never edit files in docs/development/requirements directly.");
    expect(agents).not.toContain("{requirements_directory}");
    expect(
      agents.startsWith("# Instructions\n\nThese instructions are mandatory for all code operations:\n"),
    ).toBe(true);
  });

  it("creates at REQLIX_REQ_REL_PATH when it is set", async () => {
    const rd = await resolveRequirementsDir(project.path, { REQLIX_REQ_REL_PATH: "req/here" });
    expect(rd.relPath).toBe("req/here");
    expect((await lstat(join(project.path, "req/here/AGENTS.md"))).isFile()).toBe(true);
  });

  it("searches REQLIX_REQ_REL_PATH, then the default, then docs/dev/req", async () => {
    await mkdir(join(project.path, "docs/dev/req"), { recursive: true });
    await writeFile(join(project.path, "docs/dev/req/AGENTS.md"), "legacy");
    expect((await resolveRequirementsDir(project.path, {})).relPath).toBe("docs/dev/req");
    expect((await resolveRequirementsDir(project.path, { REQLIX_REQ_REL_PATH: "custom" })).relPath).toBe(
      "docs/dev/req",
    );
    await mkdir(join(project.path, "docs/development/requirements"), { recursive: true });
    await writeFile(join(project.path, "docs/development/requirements/AGENTS.md"), "default");
    expect((await resolveRequirementsDir(project.path, {})).relPath).toBe("docs/development/requirements");
    await mkdir(join(project.path, "custom"), { recursive: true });
    await writeFile(join(project.path, "custom/AGENTS.md"), "custom");
    expect((await resolveRequirementsDir(project.path, { REQLIX_REQ_REL_PATH: "custom" })).relPath).toBe(
      "custom",
    );
  });

  it("never overwrites an existing AGENTS.md", async () => {
    await mkdir(join(project.path, "docs/development/requirements"), { recursive: true });
    await writeFile(join(project.path, "docs/development/requirements/AGENTS.md"), "mine");
    await getInstructions(project.path, {});
    expect(await readFile(join(project.path, "docs/development/requirements/AGENTS.md"), "utf8")).toBe(
      "mine",
    );
  });

  it("refuses a REQLIX_REQ_REL_PATH that leaves the project", async () => {
    await expect(resolveRequirementsDir(project.path, { REQLIX_REQ_REL_PATH: "../x" })).rejects.toThrow(
      /stays inside it/,
    );
    await expect(resolveRequirementsDir(project.path, { REQLIX_REQ_REL_PATH: "/etc" })).rejects.toThrow(
      /stays inside it/,
    );
    await expect(resolveRequirementsDir(project.path, { REQLIX_REQ_REL_PATH: "a/../../x" })).rejects.toThrow(
      /stays inside it/,
    );
  });

  it("refuses a requirements directory reached through a symlink out of the project", async () => {
    await symlink(outside.path, join(project.path, "docs"));
    await expect(getCategories(project.path, {})).rejects.toThrow(/outside the project root/);
    // Nothing was created outside.
    await expect(lstat(join(outside.path, "development"))).rejects.toThrow();
  });

  it("refuses an AGENTS.md that is a symlink", async () => {
    await mkdir(join(project.path, "docs/development/requirements"), { recursive: true });
    await writeFile(join(outside.path, "AGENTS.md"), "secret");
    await symlink(
      join(outside.path, "AGENTS.md"),
      join(project.path, "docs/development/requirements/AGENTS.md"),
    );
    await expect(getInstructions(project.path, {})).rejects.toThrow(/not a regular file/);
  });
});

describe("category files", () => {
  it("accepts only [a-z0-9_]+ names and reserves agents", () => {
    expect(categoryPath("/r", "code_quality")).toBe("/r/code_quality.md");
    for (const bad of ["AGENTS", "agents", "../x", "a/b", "Général", "a.b", "", "x.md"]) {
      expect(() => categoryPath("/r", bad), bad).toThrow(/category/);
    }
  });

  it("never lists or follows a symlinked category file", async () => {
    const dir = join(project.path, "docs/development/requirements");
    await mkdir(dir, { recursive: true });
    await writeFile(join(outside.path, "secret.md"), "# S\n\n## S.S.1: s\n\nsecret\n");
    await symlink(join(outside.path, "secret.md"), join(dir, "secret.md"));
    await writeFile(join(dir, "README.md"), "not a category name");
    await writeFile(join(dir, "general.md"), "");
    expect(await getCategories(project.path, {})).toEqual({ categories: ["general"] });
    await expect(
      insertRequirement(project.path, {}, { category: "secret", chapter: "S", title: "t", text: "x" }),
    ).rejects.toThrow(/symbolic link/);
    expect(await readFile(join(outside.path, "secret.md"), "utf8")).toBe("# S\n\n## S.S.1: s\n\nsecret\n");
  });
});

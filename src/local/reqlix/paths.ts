/**
 * Where the requirements live (G.GI.3, G.GI.4, G.C.1, G.C.2) and path containment: every file a tool
 * touches is `{requirements directory}/{category}.md` (or its lock and temp files) with a validated
 * category name, and the requirements directory must resolve (symlinks followed) inside the project root.
 */
import { constants } from "node:fs";
import { lstat, mkdir, open, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, normalize, relative, resolve, sep } from "node:path";
import { DomainError } from "../../core/errors.js";
import { agentsPlaceholder } from "./instructions.js";

export const AGENTS_FILE = "AGENTS.md";
export const DEFAULT_REL_PATH = "docs/development/requirements";
export const LEGACY_REL_PATH = "docs/dev/req";
/** Category names (`{category}.md`, G.F.1): lower-case letters, digits and `_`. */
export const CATEGORY_NAME = /^[a-z0-9_]+$/;

export interface RequirementsDir {
  projectRoot: string;
  /** Absolute, real path of the requirements directory. */
  dir: string;
  /** The directory relative to the project root, with `/` separators (shown to the model). */
  relPath: string;
  agentsPath: string;
  /** True when this call created AGENTS.md (G.GI.4). */
  created: boolean;
}

function fsMessage(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e.code ? `${e.code}: ${e.message}` : String(error);
}

/** `project_root` must be an existing absolute directory. Returns its real path. */
export async function checkProjectRoot(projectRoot: string): Promise<string> {
  if (!isAbsolute(projectRoot)) {
    throw DomainError.invalid(
      `project_root must be an absolute path; got "${projectRoot}". Pass the absolute path of the project's root directory (e.g. "/home/me/my-app").`,
      [{ field: "project_root", message: "must be an absolute path" }],
    );
  }
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(projectRoot);
  } catch {
    throw DomainError.invalid(
      `project_root "${projectRoot}" does not exist. Pass the absolute path of an existing project root directory.`,
      [{ field: "project_root", message: "does not exist" }],
    );
  }
  if (!info.isDirectory()) {
    throw DomainError.invalid(
      `project_root "${projectRoot}" is not a directory. Pass the project's root directory, not a file inside it.`,
      [{ field: "project_root", message: "is not a directory" }],
    );
  }
  return realpath(projectRoot);
}

function relFromEnv(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const raw = env.REQLIX_REQ_REL_PATH?.trim();
  if (!raw) return undefined;
  const rel = normalize(raw);
  if (isAbsolute(rel) || rel === ".." || rel.startsWith(`..${sep}`)) {
    throw DomainError.invalid(
      `REQLIX_REQ_REL_PATH="${raw}" must be a path relative to the project root that stays inside it (no absolute path, no leading ".."). Fix the variable in the MCP client's configuration.`,
    );
  }
  return rel;
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** Refuses a directory whose real location is outside the project root (a symlink out). */
async function containedDir(root: string, dir: string): Promise<string> {
  const real = await realpath(dir);
  if (!inside(root, real)) {
    throw DomainError.forbidden(
      `The requirements directory ${dir} resolves to ${real}, outside the project root ${root} (a symbolic link points out). reqlix never reads or writes outside the project; replace the link with a real directory.`,
    );
  }
  return real;
}

/** The deepest existing ancestor of `path` must resolve inside the root before anything is created. */
async function checkAncestors(root: string, path: string): Promise<void> {
  let probe = path;
  while (!(await exists(probe))) {
    const parent = resolve(probe, "..");
    if (parent === probe) return;
    probe = parent;
  }
  await containedDir(root, probe);
}

/**
 * G.GI.3 search order, then G.GI.4 creation with the placeholder (G.GI.6). Every tool resolves the
 * directory this way (G.C.1) and creates it when missing (G.C.2); only AGENTS.md's existence is
 * checked here, never its content (G.C.3).
 */
export async function resolveRequirementsDir(
  projectRootInput: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<RequirementsDir> {
  const projectRoot = await checkProjectRoot(projectRootInput);
  const fromEnv = relFromEnv(env);
  const candidates = [...(fromEnv ? [fromEnv] : []), normalize(DEFAULT_REL_PATH), normalize(LEGACY_REL_PATH)];
  for (const rel of candidates) {
    const agentsPath = join(projectRoot, rel, AGENTS_FILE);
    let info: Awaited<ReturnType<typeof lstat>>;
    try {
      info = await lstat(agentsPath);
    } catch {
      continue;
    }
    if (!info.isFile()) {
      throw DomainError.invalid(
        `${agentsPath} exists but is not a regular file (a directory or a symbolic link). Replace it with the AGENTS.md file, or remove it so reqlix can create one.`,
      );
    }
    const dir = await containedDir(projectRoot, join(projectRoot, rel));
    return {
      projectRoot,
      dir,
      relPath: toPosix(relative(projectRoot, dir)),
      agentsPath: join(dir, AGENTS_FILE),
      created: false,
    };
  }
  // G.GI.4: create at REQLIX_REQ_REL_PATH when set, else at the default location.
  const rel = fromEnv ?? normalize(DEFAULT_REL_PATH);
  const target = join(projectRoot, rel);
  try {
    await checkAncestors(projectRoot, target);
    await mkdir(target, { recursive: true });
    const dir = await containedDir(projectRoot, target);
    const relPath = toPosix(relative(projectRoot, dir));
    const agentsPath = join(dir, AGENTS_FILE);
    let created = false;
    try {
      // O_EXCL: never overwrite an AGENTS.md another process created meanwhile (G.C.4).
      const fh = await open(agentsPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
      try {
        await fh.writeFile(agentsPlaceholder(relPath), "utf8");
        await fh.sync();
      } finally {
        await fh.close();
      }
      created = true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    return { projectRoot, dir, relPath, agentsPath, created };
  } catch (error) {
    if (error instanceof DomainError) throw error;
    // G.GI.5
    throw new DomainError(
      "unavailable",
      `Cannot create the requirements file ${join(target, AGENTS_FILE)} (${fsMessage(error)}). Check that the project directory is writable, or set REQLIX_REQ_REL_PATH to a writable folder inside the project.`,
    );
  }
}

export function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

/** Validates a category name (G.F.1; `AGENTS` is reserved, G.C.3) and returns its file path. */
export function categoryPath(dir: string, category: string): string {
  if (!CATEGORY_NAME.test(category) || category.toLowerCase() === "agents") {
    throw DomainError.invalid(categoryNameProblem(category), [
      { field: "category", message: "invalid category name" },
    ]);
  }
  return join(dir, `${category}.md`);
}

export function categoryNameProblem(category: string): string {
  if (category.toLowerCase() === "agents") {
    return 'category "agents" is reserved: AGENTS.md holds the instructions and only reqlix_get_instructions uses it. Choose another category name.';
  }
  return `category "${category}" is not a valid category name: use lower-case letters, digits and underscores only (e.g. "general", "code_quality").`;
}

export function isCategoryFileName(name: string): boolean {
  if (!name.endsWith(".md")) return false;
  const base = name.slice(0, -3);
  return CATEGORY_NAME.test(base) && base !== "agents";
}

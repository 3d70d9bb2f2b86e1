/**
 * Path arithmetic for docset `local_path` values, as plain string work so the hosted server (Workers, no
 * `node:path`) computes exactly what the companion computes. Output always uses forward slashes (REQ-5),
 * whatever the operating system wrote: `C:\docs\..\kb` becomes `C:/kb`.
 */

/** `/x`, `C:/x`, `C:\x`, `\\server\share` (after slashes are turned forward, `//server/share`). */
export function isAbsolutePath(path: string): boolean {
  const p = path.replace(/\\/g, "/");
  return p.startsWith("/") || /^[A-Za-z]:\//.test(p) || /^[A-Za-z]:$/.test(p);
}

/**
 * Forward slashes, no `.` segments, `..` folded where possible, no doubled slashes, no trailing slash
 * (except for a bare root). A relative path that climbs above its start keeps its leading `..`.
 */
export function normalizePath(path: string): string {
  const p = path.replace(/\\/g, "/");
  let root = "";
  let rest = p;
  const drive = /^([A-Za-z]:)(\/|$)/.exec(p);
  if (p.startsWith("//") && !p.startsWith("///")) {
    root = "//"; // UNC share: keep both slashes
    rest = p.slice(2);
  } else if (drive) {
    root = `${(drive[1] as string).toUpperCase()}/`;
    rest = p.slice(drive[0].length);
  } else if (p.startsWith("/")) {
    root = "/";
    rest = p.slice(1);
  }
  const out: string[] = [];
  for (const segment of rest.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      const last = out[out.length - 1];
      if (last !== undefined && last !== "..") out.pop();
      else if (root === "") out.push(".."); // relative: keep climbing; absolute: `/..` is `/`
      continue;
    }
    out.push(segment);
  }
  const body = out.join("/");
  if (root === "") return body === "" ? "." : body;
  return root + body;
}

/** `path` appended to `base` (both normalized); never turns `/` + `x` into the UNC-looking `//x`. */
export function joinPath(base: string, path: string): string {
  const root = normalizePath(base);
  return normalizePath(root.endsWith("/") ? `${root}${path}` : `${root}/${path}`);
}

/** `base` joined with `path`, unless `path` is absolute; normalized. */
export function resolvePath(base: string, path: string): string {
  if (isAbsolutePath(path)) return normalizePath(path);
  return joinPath(base, path.replace(/\\/g, "/"));
}

/** Normalized directory path with exactly one trailing slash. */
export function asFolder(path: string): string {
  const p = normalizePath(path);
  return p.endsWith("/") ? p : `${p}/`;
}

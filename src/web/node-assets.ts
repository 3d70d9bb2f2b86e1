/**
 * Node's static handler for the web app's files under `public/assets/` (on Workers, `[assets]` serves them).
 * Only names in that folder are served: no path with a slash, a dot-dot or a leading dot; files are read
 * once and kept in memory (two small files), answered with a strong ETag and `no-cache` revalidation.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { AssetHandler } from "./context.js";

const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
};

export const PUBLIC_ASSETS = resolve(fileURLToPath(new URL("../../public/assets", import.meta.url)));

export function nodeAssets(dir: string = PUBLIC_ASSETS): AssetHandler {
  const cache = new Map<string, { body: Uint8Array; etag: string; type: string } | null>();
  const load = (name: string) => {
    if (!cache.has(name)) {
      const type = TYPES[name.slice(name.lastIndexOf(".") + 1)];
      let entry: { body: Uint8Array; etag: string; type: string } | null = null;
      if (type) {
        try {
          const body = readFileSync(join(dir, name));
          entry = {
            body,
            type,
            etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`,
          };
        } catch {
          entry = null;
        }
      }
      cache.set(name, entry);
    }
    return cache.get(name) ?? null;
  };
  return async (path, request) => {
    const name = path.replace(/^\/assets\//, "");
    if (!/^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(name) || name.includes("..")) return undefined;
    const file = load(name);
    if (!file) return undefined;
    const headers = {
      "content-type": file.type,
      etag: file.etag,
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
    };
    if (request.headers.get("if-none-match") === file.etag)
      return new Response(null, { status: 304, headers });
    return new Response(request.method === "HEAD" ? null : (file.body as Uint8Array<ArrayBuffer>), {
      status: 200,
      headers,
    });
  };
}

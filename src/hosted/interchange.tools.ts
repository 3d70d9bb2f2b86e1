/**
 * `export_requirements` and the export resource (issue 15). The tool answers a resource link, never the
 * export itself: the link names the caller's workspace, and reading it (with the caller's token, through
 * `resources/read`) runs the export in that workspace only — another workspace's token reading it gets
 * "not found". Large exports belong to `GET /api/v1/export`, which streams.
 */
import * as z from "zod";
import { DomainError } from "../core/errors.js";
import { formatNames, interchangeFormat } from "../core/interchange/registry.js";
import { normalizeReference } from "../core/references.js";
import type { ContentItem, ResourceContent, ResourceDef } from "../core/registry.js";
import { requireEpicRow } from "../db/epics.repo.js";
import { type InterchangeCaller, prepareExport } from "../db/interchange-ops.js";
import { hostedTool, READ } from "./access.js";
import type { HostedContext } from "./context.js";
import { epicId } from "./schemas.js";

/** A resource read holds the export in memory: beyond this, the streamed HTTP export is the way. */
export const MAX_RESOURCE_EXPORT_BYTES = 32 * 1024 * 1024;

const exportUri = (workspace: string, format: string, epic?: string) =>
  `export://${encodeURIComponent(workspace)}/${format}${epic ? `/${epic}` : ""}`;

const exportOutput = z.object({
  uri: z.string().describe("Read it with resources/read (same token) to get the export."),
  format: z.string(),
  mime_type: z.string(),
  file_name: z.string(),
  epic_id: z.string().optional(),
  http: z.string().describe("The same export streamed over HTTP: GET this path with the same token."),
});
type ExportLink = z.infer<typeof exportOutput>;

export const exportRequirementsTool = hostedTool({
  name: "export_requirements",
  title: "Export requirements",
  description:
    "Export the workspace, or one epic with everything under it, as a file: json (lossless, for re-import or another reqlix), csv (one row per requirement, for spreadsheets), markdown (a .tar.gz of a folder per epic and a file per user story), or reqif (DOORS, Polarion, Jama) when available. Returns a resource link (export://…) to read with resources/read using the same token, and the HTTP path that streams the same file. Use it when the user wants to hand requirements to another tool or keep a copy.",
  input: z.object({
    format: z.enum(formatNames() as [string, ...string[]]).describe(`One of ${formatNames().join(", ")}.`),
    epic_id: epicId().optional().describe("Export only this epic (its stories, requirements, criteria)."),
  }),
  output: exportOutput,
  annotations: READ,
  async handler({ format: name, epic_id }, ctx): Promise<ExportLink> {
    const format = interchangeFormat(name);
    if (epic_id) await ctx.database.read((db) => requireEpicRow(db, ctx.auth.workspaceId, epic_id));
    const slug = ctx.auth.workspaceSlug;
    return {
      uri: exportUri(slug, format.name, epic_id),
      format: format.name,
      mime_type: format.contentType,
      file_name: `${slug}${epic_id ? `-${epic_id}` : ""}${format.extension}`,
      ...(epic_id ? { epic_id } : {}),
      http: `/api/v1/export?format=${format.name}${epic_id ? `&epic=${epic_id}` : ""}`,
    };
  },
  render(link: ExportLink): ContentItem[] {
    return [
      {
        type: "text",
        text: `Export ready: read ${link.uri} with resources/read (same token), or GET ${link.http}.`,
      },
      {
        type: "resource_link",
        uri: link.uri,
        name: link.file_name,
        title: `Export of ${link.epic_id ?? "the workspace"} as ${link.format}`,
        mimeType: link.mime_type,
      },
    ];
  },
});

const URI = /^export:\/\/([^/?#]+)\/([a-z]+)(?:\/([^/?#]+))?$/i;

function callerOf(ctx: HostedContext): InterchangeCaller {
  return {
    workspaceId: ctx.auth.workspaceId,
    workspaceSlug: ctx.auth.workspaceSlug,
    role: ctx.auth.role,
    userId: ctx.auth.userId,
    tokenId: ctx.auth.tokenId,
    requestId: ctx.requestId,
    channel: "mcp",
    now: ctx.now(),
  };
}

/** `export://{workspace}/{format}` (the workspace) and `export://{workspace}/{format}/{epic_id}`. */
export const exportResource: ResourceDef<HostedContext> = {
  uriTemplate: "export://{workspace}/{format}/{epic_id}",
  name: "export",
  title: "Export",
  // The JSON format's; each read answers the content type of the format it names.
  mimeType: "application/json",
  description:
    "An export of your workspace (export://<workspace>/<format>) or of one epic (…/<format>/EP-001), as export_requirements links it. Only the workspace's own members can read it.",
  match(uri) {
    const m = URI.exec(uri);
    if (!m) return undefined;
    return {
      workspace: decodeURIComponent(m[1] as string),
      format: (m[2] as string).toLowerCase(),
      ...(m[3] ? { epic_id: decodeURIComponent(m[3]) } : {}),
    };
  },
  async read(params, uri, ctx): Promise<ResourceContent[]> {
    // Another workspace's link is simply not found here: nothing tells it exists.
    const epic = params.epic_id === undefined ? undefined : normalizeReference("EP", params.epic_id);
    if (params.workspace !== ctx.auth.workspaceSlug || (params.epic_id !== undefined && !epic)) {
      throw DomainError.notFound(
        `Resource not found: ${uri}. Call export_requirements for a link to your own export.`,
        uri,
      );
    }
    const prepared = await prepareExport(ctx.database, callerOf(ctx), {
      format: params.format ?? "",
      epic: epic,
    }).catch((err: unknown) => {
      // An unknown format in a URI is a missing resource, not bad arguments.
      if (err instanceof DomainError && err.code === "invalid_input")
        throw DomainError.notFound(`Resource not found: ${uri}. ${err.message}`, uri);
      throw err;
    });
    const chunks: Uint8Array[] = [];
    let size = 0;
    const encoder = new TextEncoder();
    await prepared.run({
      write(chunk) {
        const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk;
        size += bytes.length;
        if (size > MAX_RESOURCE_EXPORT_BYTES) {
          throw DomainError.invalid(
            `This export is larger than ${MAX_RESOURCE_EXPORT_BYTES / 1024 / 1024} MiB: download it streamed with GET /api/v1/export?format=${prepared.format.name}${epic ? `&epic=${epic}` : ""} and the same token.`,
          );
        }
        chunks.push(bytes);
      },
    });
    const all = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.length;
    }
    const mimeType = prepared.format.contentType;
    if (/^(application\/json|text\/)/.test(mimeType))
      return [{ uri, mimeType, text: new TextDecoder().decode(all) }];
    let binary = "";
    for (let i = 0; i < all.length; i += 0x8000)
      binary += String.fromCharCode(...all.subarray(i, i + 0x8000));
    return [{ uri, mimeType, blob: btoa(binary) }];
  },
};

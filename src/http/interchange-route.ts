/**
 * The interchange API (issue 15), behind the auth middleware:
 *
 * - `GET /api/v1/export?format=json|csv|markdown|reqif&epic=EP-001`: any member; the export streamed as the
 *   format's content type, offered as an attachment. 400 unknown format / bad epic id, 404 unknown epic.
 * - `POST /api/v1/import?format=…&dry_run=true|false`: editors and admins; the file is the raw body, its
 *   name (Content-Disposition `filename`) becomes the revisions' `source`. Dry run (the default) answers
 *   the plan and writes nothing; `dry_run=false` applies it in one transaction. A malformed file → 400
 *   with `line` and `column`, nothing written.
 *
 * Both are audited: an applied import's row commits in its transaction; exports, dry runs and refusals go
 * to the batched audit queue like the faces' reads.
 */
import { type Context, Hono } from "hono";
import { DomainError, isDomainError } from "../core/errors.js";
import type { ImportInput } from "../core/interchange/formats.js";
import { decodeUtf8 } from "../core/interchange/formats.js";
import { type InterchangeCaller, importOp, prepareExport } from "../db/interchange-ops.js";
import type { AuditSink } from "./audit.js";
import type { AppDeps, AppEnv } from "./context.js";
import { auditFor } from "./faces-common.js";
import { rateLimit } from "./rate-limit.js";

export const EXPORT_PATH = "/api/v1/export";
export const IMPORT_PATH = "/api/v1/import";
/** Default cap of an import body; `AppDeps.maxImportBodyBytes` overrides it. */
export const DEFAULT_MAX_IMPORT_BODY_BYTES = 128 * 1024 * 1024;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/**
 * The file name of `Content-Disposition: attachment; filename="x"` (or RFC 5987 `filename*=UTF-8''x`),
 * without directories or control characters, at most 500 characters (what a revision's source holds).
 */
export function fileNameOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/.exec(header);
  let name: string | undefined;
  try {
    name = star ? decodeURIComponent(star[1] as string) : (plain?.[1]?.replace(/\\(.)/g, "$1") ?? plain?.[2]);
  } catch {
    name = plain?.[1] ?? plain?.[2];
  }
  const cleaned = name?.split(/[/\\]/).pop()?.replace(CONTROL_CHARACTERS, "").trim().slice(0, 500);
  return cleaned ? cleaned : undefined;
}

function dryRunOf(value: string | undefined): boolean {
  if (value === undefined || value === "" || value === "true" || value === "1") return true;
  if (value === "false" || value === "0") return false;
  throw DomainError.invalid(`dry_run must be true or false, got "${value}".`, [
    { field: "dry_run", message: "true or false" },
  ]);
}

function inputOf(c: Context<AppEnv>, fileName: string | undefined): ImportInput {
  return {
    ...(fileName !== undefined ? { fileName } : {}),
    bytes: async () => new Uint8Array(await c.req.arrayBuffer()),
    text: async () => decodeUtf8(new Uint8Array(await c.req.arrayBuffer())),
    stream: () => c.req.raw.body ?? new ReadableStream({ start: (ctl) => ctl.close() }),
  };
}

export function interchangeRoutes(deps: AppDeps & { audit?: AuditSink }): Hono<AppEnv> {
  const clock = deps.clock ?? (() => new Date());
  const audit = auditFor(deps);
  const route = new Hono<AppEnv>();
  if (deps.rateLimiter) route.use("*", rateLimit({ limiter: deps.rateLimiter, logger: deps.logger }));

  const callerOf = (c: Context<AppEnv>): InterchangeCaller => {
    const auth = c.get("auth");
    return {
      workspaceId: auth.workspaceId,
      workspaceSlug: auth.workspaceSlug,
      role: auth.role,
      userId: auth.userId,
      tokenId: auth.tokenId,
      requestId: c.get("requestId"),
      channel: "http",
      now: clock(),
    };
  };

  const onNode = (c: Context<AppEnv>) => typeof c.env === "object" && c.env !== null && "incoming" in c.env;
  const auditRead = (
    c: Context<AppEnv>,
    method: string,
    target: string | null,
    reference: string | null,
    started: number,
    err?: unknown,
  ) => {
    const auth = c.get("auth");
    const pending = audit.record({
      workspaceId: auth.workspaceId,
      userId: auth.userId,
      tokenId: auth.tokenId,
      channel: "http",
      method,
      target,
      referenceId: reference,
      outcome: err === undefined ? "ok" : "error",
      errorCode: err === undefined ? null : isDomainError(err) ? err.code : "internal",
      requestId: c.get("requestId"),
      durationMs: Date.now() - started,
    });
    if (onNode(c)) return;
    try {
      c.executionCtx.waitUntil(pending);
    } catch {
      // app.request() in tests: no execution context
    }
  };

  route.get(EXPORT_PATH, async (c) => {
    const started = Date.now();
    const formatName = c.req.query("format") ?? "";
    let prepared: Awaited<ReturnType<typeof prepareExport>>;
    try {
      prepared = await prepareExport(deps.database, callerOf(c), {
        format: formatName,
        epic: c.req.query("epic"),
      });
    } catch (err) {
      auditRead(c, "export", formatName || null, c.req.query("epic") ?? null, started, err);
      throw err;
    }
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const encoder = new TextEncoder();
    const requestId = c.get("requestId");
    const streamed = (async () => {
      try {
        await prepared.run({
          async write(chunk) {
            await writer.ready;
            await writer.write(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
          },
        });
        await writer.close();
        auditRead(c, "export", prepared.format.name, prepared.epic ?? null, started);
      } catch (err) {
        // Headers are sent: the client sees a cut stream (no valid document); the log has the cause.
        deps.logger.log("error", "export failed while streaming", {
          requestId,
          error: err instanceof Error ? err.message : String(err),
        });
        await writer.abort(err).catch(() => undefined);
        auditRead(c, "export", prepared.format.name, prepared.epic ?? null, started, err);
      }
    })();
    if (!onNode(c)) {
      try {
        c.executionCtx.waitUntil(streamed);
      } catch {
        // app.request() in tests
      }
    }
    return new Response(readable, {
      status: 200,
      headers: {
        "Content-Type": prepared.format.contentType,
        "Content-Disposition": `attachment; filename="${prepared.fileName}"`,
        "Cache-Control": "no-store",
      },
    });
  });

  route.post(IMPORT_PATH, async (c) => {
    const started = Date.now();
    const formatName = c.req.query("format") ?? "";
    try {
      const dryRun = dryRunOf(c.req.query("dry_run"));
      const fileName = fileNameOf(c.req.header("content-disposition"));
      const report = await importOp(
        deps.database,
        callerOf(c),
        { format: formatName, dryRun },
        inputOf(c, fileName),
      );
      // An applied import's audit row committed with it; a dry run is a read.
      if (dryRun) auditRead(c, "import.dry_run", report.format, null, started);
      return c.json(report, 200);
    } catch (err) {
      auditRead(c, "import", formatName || null, null, started, err);
      throw err;
    }
  });

  return route;
}

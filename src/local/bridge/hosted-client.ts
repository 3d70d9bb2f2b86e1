/**
 * The bridge's two calls to a hosted reqlix server, over plain `fetch` (the companion never imports the
 * server): `GET /api/v1/export?format=json` (the workspace as an interchange document) and `POST
 * /api/v1/import?format=json&dry_run=false` (one transaction; the revisions' source is the file name sent
 * in `Content-Disposition`). The token only ever goes into the Authorization header: no message here
 * contains it.
 */
import { DomainError } from "../../core/errors.js";
import type { BridgeDocument } from "./mapping.js";

export interface BridgeTarget {
  url: string;
  token: string;
  workspace: string;
}

const TIMEOUT_MS = 120_000;

function endpoint(url: string, path: string): string {
  return `${url.replace(/\/+$/, "")}${path}`;
}

/** Thrown for answers that mean the invocation is wrong (token, role, workspace): exit 2 in the CLI. */
export class BridgeUsageError extends DomainError {}

const DETAILS = 5;

function serverMessage(json: unknown): string {
  const j = json as
    | {
        error?: { message?: string; errors?: { field?: string; message?: string }[] } | string;
        message?: string;
      }
    | undefined;
  if (typeof j?.error === "object" && j.error?.message) {
    // The import's refusal lists its problems by document path (epics[0].title: …): the first few help most.
    const errors = Array.isArray(j.error.errors) ? j.error.errors : [];
    const listed = errors
      .slice(0, DETAILS)
      .map((e) => `\n  - ${e.field ? `${e.field}: ` : ""}${e.message ?? ""}`)
      .join("");
    return `${j.error.message}${listed}${errors.length > DETAILS ? `\n  - … ${errors.length - DETAILS} more` : ""}`;
  }
  if (typeof j?.error === "string") return j.error;
  return typeof j?.message === "string" ? j.message : "";
}

/** Never lets the token through, whatever a server or a network layer put into a message. */
export function redact(text: string, token: string): string {
  return token.length >= 4 ? text.split(token).join("[token]") : text;
}

async function call(
  target: BridgeTarget,
  what: string,
  path: string,
  init: { method: string; body?: string; headers?: Record<string, string> },
  signal?: AbortSignal,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(endpoint(target.url, path), {
      method: init.method,
      headers: { authorization: `Bearer ${target.token}`, accept: "application/json", ...init.headers },
      body: init.body,
      signal: signal ?? AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new DomainError(
      "unavailable",
      redact(
        `${what}: cannot reach the reqlix server at ${target.url} (${(error as Error).message}). Check the URL and that the server is running.`,
        target.token,
      ),
    );
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (response.ok) {
    if (json === undefined)
      throw new DomainError(
        "unavailable",
        `${what}: the server's answer is not JSON (HTTP ${response.status}).`,
      );
    return json;
  }
  const detail = redact(serverMessage(json), target.token);
  const suffix = detail ? `: ${detail}` : "";
  if (response.status === 401)
    throw new BridgeUsageError(
      "unauthorized",
      `${what}: the server refused the token (HTTP 401${suffix}). Pass a valid, unexpired personal access token of the workspace with --token or REQLIX_TOKEN.`,
    );
  if (response.status === 403)
    throw new BridgeUsageError(
      "forbidden",
      `${what}: the token's role does not allow this (HTTP 403${suffix}). Pushing needs an editor's or admin's token.`,
    );
  if (response.status === 404)
    throw new BridgeUsageError(
      "not_found",
      `${what}: ${target.url} has no ${path.split("?")[0]} (HTTP 404${suffix}). Check --url: it is the server's base URL, e.g. https://reqlix.example.com.`,
    );
  if (response.status === 400 || response.status === 409 || response.status === 422)
    throw new DomainError(
      response.status === 409 ? "conflict" : "invalid_input",
      `${what}: the server refused the change (HTTP ${response.status}${suffix}). Nothing was changed.`,
    );
  throw new DomainError("unavailable", `${what}: the server answered HTTP ${response.status}${suffix}.`);
}

/**
 * The workspace as one interchange document. A token belongs to one workspace, which the export names:
 * it must be the one the caller named, so a token of another workspace never syncs there.
 */
export async function exportWorkspace(target: BridgeTarget, signal?: AbortSignal): Promise<BridgeDocument> {
  const json = (await call(
    target,
    "Reading the hosted workspace",
    "/api/v1/export?format=json",
    { method: "GET" },
    signal,
  )) as Partial<BridgeDocument> | undefined;
  if (
    json?.format !== "reqlix-export" ||
    !Array.isArray(json.epics) ||
    !Array.isArray(json.user_stories) ||
    !Array.isArray(json.requirements)
  ) {
    throw new DomainError(
      "unavailable",
      "Reading the hosted workspace: the answer is not a reqlix export document (is the server older than the interchange API?).",
    );
  }
  const slug = json.workspace?.slug;
  if (slug !== undefined && slug !== target.workspace) {
    throw new BridgeUsageError(
      "invalid_input",
      `The token belongs to workspace "${slug}", not "${target.workspace}". Pass --workspace ${slug}, or a token of workspace "${target.workspace}".`,
    );
  }
  return json as BridgeDocument;
}

export interface ImportAnswer {
  [field: string]: unknown;
}

/** Applies a document in one transaction; `source` names the revisions it records. */
export async function importDocument(
  target: BridgeTarget,
  doc: BridgeDocument,
  source: string,
  signal?: AbortSignal,
): Promise<ImportAnswer> {
  return (await call(
    target,
    "Pushing to the hosted workspace",
    "/api/v1/import?format=json&dry_run=false",
    {
      method: "POST",
      body: JSON.stringify(doc),
      headers: {
        "content-type": "application/json",
        "content-disposition": `attachment; filename="${source}"`,
      },
    },
    signal,
  )) as ImportAnswer;
}

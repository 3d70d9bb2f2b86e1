/**
 * The trace scanner's two calls to a hosted reqlix server (the contract with the hosted half):
 * `resolve_references` over `POST {url}/api/v1/mcp` (existence, status and revision of hosted ids) and
 * `POST {url}/api/v1/traces` (push a snapshot). The token only ever goes into the Authorization header.
 */
import { DomainError } from "../../core/errors.js";

export interface HostedTarget {
  url: string;
  token: string;
}

export interface ResolvedReference {
  id: string;
  found: boolean;
  kind?: string;
  title?: string;
  status?: string;
  revision?: number;
}

const BATCH = 1000;

function endpoint(url: string, path: string): string {
  return `${url.replace(/\/+$/, "")}${path}`;
}

async function post(
  target: HostedTarget,
  path: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<{ status: number; json: unknown }> {
  let response: Response;
  try {
    response = await fetch(endpoint(target.url, path), {
      method: "POST",
      headers: {
        authorization: `Bearer ${target.token}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify(body),
      signal: signal ?? AbortSignal.timeout(60_000),
    });
  } catch (error) {
    throw new DomainError(
      "unavailable",
      `Cannot reach the reqlix server at ${target.url} (${(error as Error).message}). Check the URL and that the server is running.`,
    );
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, json };
}

function serverMessage(json: unknown): string {
  const j = json as { error?: { message?: string; field?: string } | string; message?: string } | undefined;
  if (typeof j?.error === "object" && j.error?.message)
    return j.error.field ? `${j.error.message} (field ${j.error.field})` : j.error.message;
  if (typeof j?.error === "string") return j.error;
  return j?.message ?? "";
}

function httpError(status: number, json: unknown, what: string): DomainError {
  const detail = serverMessage(json);
  if (status === 401)
    return new DomainError(
      "unauthorized",
      `${what}: the server refused the token (401${detail ? `: ${detail}` : ""}). Pass a valid, unexpired personal access token.`,
    );
  if (status === 403)
    return DomainError.forbidden(
      `${what}: the token's role does not allow this (403${detail ? `: ${detail}` : ""}). Use a token of an editor or admin.`,
    );
  if (status === 400) {
    const field = (json as { error?: { field?: string } } | undefined)?.error?.field;
    return DomainError.invalid(
      `${what}: the server rejected the request (400${detail ? `: ${detail}` : ""}).`,
      field ? [{ field, message: detail }] : [],
    );
  }
  return new DomainError(
    "unavailable",
    `${what}: the server answered HTTP ${status}${detail ? `: ${detail}` : ""}.`,
  );
}

/** Existence, status and revision of hosted ids, 1,000 per call. */
export async function resolveReferences(
  target: HostedTarget,
  ids: string[],
  signal?: AbortSignal,
): Promise<Map<string, ResolvedReference>> {
  const out = new Map<string, ResolvedReference>();
  for (let i = 0; i < ids.length; i += BATCH) {
    const batch = ids.slice(i, i + BATCH);
    const { status, json } = await post(
      target,
      "/api/v1/mcp",
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "resolve_references", arguments: { ids: batch } },
      },
      signal,
    );
    if (status !== 200) throw httpError(status, json, "Resolving requirement ids");
    const rpc = json as {
      error?: { message?: string };
      result?: {
        isError?: boolean;
        structuredContent?: { references?: ResolvedReference[] };
        content?: { text?: string }[];
      };
    };
    if (rpc?.error)
      throw new DomainError(
        "unavailable",
        `Resolving requirement ids: the server answered ${rpc.error.message ?? "an error"}.`,
      );
    if (rpc?.result?.isError)
      throw new DomainError(
        "unavailable",
        `Resolving requirement ids: ${rpc.result.content?.[0]?.text ?? "the tool failed"}.`,
      );
    const refs = rpc?.result?.structuredContent?.references;
    if (!Array.isArray(refs))
      throw new DomainError(
        "unavailable",
        "Resolving requirement ids: the server's answer has no structuredContent.references (is resolve_references available on this server?).",
      );
    for (const r of refs) if (r && typeof r.id === "string") out.set(r.id.toUpperCase(), r);
  }
  return out;
}

export interface PushBody {
  schema: 1;
  repository: string;
  commit: string;
  branch: string | null;
  scanned_at: string;
  citations: {
    id: string;
    revision: number | null;
    file: string;
    line: number;
    column: number;
    kind: "impl" | "test" | "doc";
    test_name: string | null;
    snippet: string;
  }[];
  commits: { sha: string; ids: string[]; subject: string }[];
}

export interface PushAnswer {
  snapshot_id: number;
  repository: string;
  commit: string;
  created: boolean;
  citations: number;
  orphans: string[];
}

export async function pushSnapshot(
  target: HostedTarget,
  body: PushBody,
  signal?: AbortSignal,
): Promise<PushAnswer> {
  const { status, json } = await post(target, "/api/v1/traces", body, signal);
  if (status !== 200 && status !== 201) throw httpError(status, json, "Pushing the trace snapshot");
  const a = json as PushAnswer | undefined;
  if (!a || typeof a.snapshot_id !== "number")
    throw new DomainError(
      "unavailable",
      "Pushing the trace snapshot: the server's answer has no snapshot_id.",
    );
  return a;
}

/**
 * Client ID Metadata Documents (issue 12; draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25): a
 * client_id that is an https URL names a JSON document of client metadata which this server fetches. The
 * fetch is where a server could be turned against its own network (SSRF), so: https only (http on loopback
 * only when the app allows it, for tests), no credentials, no redirects followed, no IP literal of a private,
 * loopback or link-local range unless loopback is allowed, 5 s in all, 16 KiB at most, JSON only, and the
 * document must name itself as `client_id`. A public name pointing at a private address: a Worker cannot
 * resolve names itself, so there the platform's egress rules stop it; Node fetches through
 * node-document-fetch.ts (wired in src/node.ts), which checks every address the name resolves to with the
 * same ranges (core/ip-ranges.ts) and connects only to an address it checked.
 */
import { isLoopbackIp, isNonPublicIp, parseIp } from "../core/ip-ranges.js";
import { type ClientMetadata, checkClientMetadata, isLoopbackHost } from "../core/oauth.js";

export const MAX_DOCUMENT_BYTES = 16 * 1024;
export const DOCUMENT_TIMEOUT_MS = 5_000;

export interface DocumentOptions {
  /** Accept http:// and https:// on loopback hosts (tests serve the document locally). */
  allowLoopback?: boolean;
  fetch?: typeof fetch;
  /** Default DOCUMENT_TIMEOUT_MS. */
  timeoutMs?: number;
}

/** Does this client_id ask for a metadata document (an URL) rather than a registered client? */
export function isMetadataDocumentId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/** An IP literal outside the public internet, or a name that is local by convention. */
function privateAddress(hostname: string): boolean {
  const h = hostname.toLowerCase();
  const ip = parseIp(h);
  if (ip) return isNonPublicIp(ip);
  return h === "localhost" || h.endsWith(".localhost") || h.endsWith(".internal") || h.endsWith(".local");
}

const PRIVATE_HOST = "A client_id URL must name a public host, not a private or loopback address.";

/**
 * Why a connection to `address` (what `hostname` resolved to) is refused, or undefined when it may be made.
 * With `allowLoopback`, loopback addresses pass (tests serve documents there); no other private one does.
 */
export function resolvedAddressProblem(
  hostname: string,
  address: string,
  options: Pick<DocumentOptions, "allowLoopback"> = {},
): string | undefined {
  const ip = parseIp(address);
  if (!ip) return `${PRIVATE_HOST} ${hostname} resolved to "${address}", which is not an IP address.`;
  if (!isNonPublicIp(ip) || (options.allowLoopback && isLoopbackIp(ip))) return undefined;
  return `${PRIVATE_HOST} ${hostname} resolves to the private address ${address}.`;
}

/** Thrown by a document fetch that refused to connect (a checked resolution); its message is for the user. */
export class DocumentAddressError extends Error {
  override name = "DocumentAddressError";
}

/** Why this URL may not be fetched as a client_id, or undefined when it may. */
export function documentUrlProblem(clientId: string, options: DocumentOptions = {}): string | undefined {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return "client_id is not a valid URL.";
  }
  const loopback = isLoopbackHost(url.hostname);
  if (url.protocol !== "https:" && !(options.allowLoopback && loopback && url.protocol === "http:")) {
    return "A client_id URL must use https.";
  }
  if (url.username || url.password) return "A client_id URL must not carry credentials.";
  if (url.hash) return "A client_id URL must not have a fragment.";
  if (url.pathname === "/" || url.pathname === "") return "A client_id URL must have a path.";
  if (privateAddress(url.hostname) && !(options.allowLoopback && loopback)) {
    return PRIVATE_HOST;
  }
  return undefined;
}

export type DocumentResult = { ok: true; metadata: ClientMetadata } | { ok: false; error: string };

/** Fetches and checks the document at `clientId`. */
export async function fetchClientDocument(
  clientId: string,
  options: DocumentOptions = {},
): Promise<DocumentResult> {
  const problem = documentUrlProblem(clientId, options);
  if (problem) return { ok: false, error: problem };
  const signal = AbortSignal.timeout(options.timeoutMs ?? DOCUMENT_TIMEOUT_MS);
  let text: string;
  try {
    const res = await (options.fetch ?? fetch)(clientId, {
      method: "GET",
      headers: { accept: "application/json" },
      redirect: "manual",
      credentials: "omit",
      signal,
    });
    if (res.status !== 200) {
      await res.body?.cancel();
      return {
        ok: false,
        error: `The client metadata document answered HTTP ${res.status} (redirects are not followed).`,
      };
    }
    const type = res.headers.get("content-type") ?? "";
    if (!/^application\/([a-z.+-]*\+)?json\b/i.test(type)) {
      await res.body?.cancel();
      return { ok: false, error: "The client metadata document must be served as application/json." };
    }
    const declared = Number(res.headers.get("content-length") ?? "0");
    if (declared > MAX_DOCUMENT_BYTES) {
      await res.body?.cancel();
      return { ok: false, error: `The client metadata document is larger than ${MAX_DOCUMENT_BYTES} bytes.` };
    }
    text = await readCapped(res, MAX_DOCUMENT_BYTES, signal);
  } catch (error) {
    if (error instanceof DocumentAddressError) return { ok: false, error: error.message };
    const reason = signal.aborted
      ? "timed out"
      : error instanceof Error && error.message === "too large"
        ? `is larger than ${MAX_DOCUMENT_BYTES} bytes`
        : "could not be fetched";
    return { ok: false, error: `The client metadata document ${reason}.` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: "The client metadata document is not JSON." };
  }
  if (typeof json !== "object" || json === null || (json as { client_id?: unknown }).client_id !== clientId) {
    return { ok: false, error: "The client metadata document must name its own URL as client_id." };
  }
  const checked = checkClientMetadata(json, "none");
  if (!checked.ok) return checked;
  if (checked.metadata.token_endpoint_auth_method !== "none") {
    return { ok: false, error: 'A client metadata document must use token_endpoint_auth_method "none".' };
  }
  return checked;
}

async function readCapped(res: Response, limit: number, signal: AbortSignal): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    if (signal.aborted) throw signal.reason;
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new Error("too large");
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}

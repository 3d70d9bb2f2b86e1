/**
 * The `requestState` of a multi-round-trip request (MCP 2026-07-28, SEP-2322): the answers a handler has
 * gathered in earlier rounds, carried by the client between rounds so that the server keeps nothing.
 * The client can read it (signed, not encrypted: it holds only the client's own answers) but not change
 * it, move it to another caller or another request, or keep it past its expiry:
 *
 *   "rs1." b64url(JSON {a: answers, exp: unix ms}) "." b64url(HMAC-SHA256(key, label ‖ caller ‖ request ‖ body))
 *
 * `caller` names who asked (workspace, user, credential) and `request` what was asked (method, tool or
 * prompt name, arguments in canonical JSON); neither is in the state itself, so a state replayed by
 * another token or for other arguments fails its MAC. The key is derived from a server secret
 * (`stateKeyFrom`), never used as given. Web Crypto only: the same code runs on Node and in workerd.
 */
import type { InputAnswer } from "../core/registry.js";

const PREFIX = "rs1.";
const LABEL = "reqlix.mcp.requestState.v1";
/** How long a client may take to answer (a person filling in a form): then the call starts over. */
export const STATE_TTL_MS = 10 * 60_000;

const utf8 = new TextEncoder();

/** An HMAC key for request states, derived (HKDF-SHA256) from a secret of at least 32 bytes. */
export async function stateKeyFrom(secret: string | Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  const bytes = typeof secret === "string" ? utf8.encode(secret) : secret;
  if (bytes.byteLength < 32) throw new Error("the request-state secret must be at least 32 bytes");
  const material = await crypto.subtle.importKey("raw", bytes, "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: utf8.encode("reqlix"), info: utf8.encode(LABEL) },
    material,
    { name: "HMAC", hash: "SHA-256", length: 256 },
    false,
    ["sign", "verify"],
  );
}

/** A key for one process or isolate: states it signs die with it (no secret configured). */
export function ephemeralStateKey(): Promise<CryptoKey> {
  return stateKeyFrom(crypto.getRandomValues(new Uint8Array(32)));
}

/** What a state is bound to: who asked, and the request (method, name, arguments) it belongs to. */
export interface StateBinding {
  caller: string;
  request: string;
}

/** The `request` part of a binding: method, target and arguments, the arguments in canonical JSON. */
export function requestBinding(method: string, name: string, args: unknown): string {
  return `${method}\u0000${name}\u0000${canonicalJson(args ?? {})}`;
}

/** JSON with object keys sorted at every depth, so equal arguments bind equally whatever their order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Why a state was refused; the message is the client's (it names no secret). */
export class StateRefused extends Error {
  constructor(
    readonly reason: "malformed" | "forged" | "expired",
    message: string,
  ) {
    super(message);
  }
}

function macInput(binding: StateBinding, body: string): Uint8Array<ArrayBuffer> {
  return utf8.encode(`${LABEL}\u0000${binding.caller}\u0000${binding.request}\u0000${body}`);
}

export async function sealState(
  key: CryptoKey,
  binding: StateBinding,
  answers: Record<string, InputAnswer>,
  now: number,
): Promise<string> {
  const body = toBase64Url(utf8.encode(JSON.stringify({ a: answers, exp: now + STATE_TTL_MS })));
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, macInput(binding, body)));
  return `${PREFIX}${body}.${toBase64Url(mac)}`;
}

const RETRY = "Call again without requestState and inputResponses to start over.";

/** The answers of a state this server issued for this caller and request, or StateRefused. */
export async function openState(
  key: CryptoKey,
  binding: StateBinding,
  state: string,
  now: number,
): Promise<Record<string, InputAnswer>> {
  const dot = state.lastIndexOf(".");
  const body = state.slice(PREFIX.length, dot);
  const mac =
    dot > PREFIX.length && state.startsWith(PREFIX) ? fromBase64Url(state.slice(dot + 1)) : undefined;
  if (!mac) throw new StateRefused("malformed", `requestState is not one this server issued. ${RETRY}`);
  // subtle.verify compares in constant time; a state for another caller or request fails here too.
  if (!(await crypto.subtle.verify("HMAC", key, mac, macInput(binding, body)))) {
    throw new StateRefused(
      "forged",
      `requestState failed its integrity check: it was altered, or issued for another call, other arguments or another credential. ${RETRY}`,
    );
  }
  const decoded = JSON.parse(new TextDecoder().decode(fromBase64Url(body) ?? new Uint8Array())) as {
    a: Record<string, InputAnswer>;
    exp: number;
  };
  if (decoded.exp < now) {
    throw new StateRefused(
      "expired",
      `requestState expired at ${new Date(decoded.exp).toISOString()} (it lives ${STATE_TTL_MS / 60_000} minutes). ${RETRY}`,
    );
  }
  return decoded.a;
}

function toBase64Url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const bin = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

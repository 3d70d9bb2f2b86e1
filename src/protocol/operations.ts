/**
 * The three operations that act on data — `tools/call`, `resources/read`, `prompts/get` — run the same way by
 * every face and observed exactly once whatever their outcome (the audit trail hangs on this seam). Faces
 * differ only in how they show an outcome: a tool result with `isError` on MCP, a JSON-RPC error object on
 * `/api/v1/mcp`.
 */
import { isDomainError } from "../core/errors.js";
import { kindOfReference } from "../core/references.js";
import { InputNeeded } from "./input-exchange.js";

export type OperationMethod = "tools/call" | "resources/read" | "prompts/get";

export interface OperationEvent {
  method: OperationMethod;
  /** The tool or prompt name, or the resource URI. */
  target: string;
  /** The reference id the call acted on, when one is recognisable. Never any other argument value. */
  referenceId?: string;
  outcome: "ok" | "error";
  /** A DomainErrorCode, `unknown_tool`, `unknown_prompt`, `input_required` (a round asking the client), or `internal`. */
  errorCode?: string;
  durationMs: number;
  /**
   * The face already committed this operation's audit row inside its write transaction (see
   * `Operation.recorded`): an observer that writes rows must not write a second one.
   */
  recorded?: true;
}

/**
 * One running operation, handed to the handler context's factory so a face can tie the operation's audit
 * row to its write transaction (issue item 7: an acknowledged write never lacks its row).
 */
export interface Operation {
  method: OperationMethod;
  target: string;
  args: unknown;
  uri?: string;
  /** `performance.now()` at the start (the row's duration is measured from here). */
  startedAt: number;
  /** Set once the operation's audit row has committed together with a write of the handler. */
  recorded: boolean;
  /**
   * What the handler returned, when the operation goes on to render it (tools/call): the observer finds
   * the entity acted on (a create's new id) there, not in the rendering.
   */
  output?: unknown;
}

/** Milliseconds since the operation started, rounded. */
export function elapsedMs(op: Operation): number {
  return Math.round(performance.now() - op.startedAt);
}

/** Must not throw: it runs inside the request (an audit sink catches and logs its own failures). */
export type OperationObserver = (event: OperationEvent) => void;

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A known prefix is normalised (`us-47` → `US-047`); any other `PREFIX-123` shape is kept upper-cased. */
function asReference(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const known = kindOfReference(value)?.reference;
  if (known) return known;
  return /^[A-Za-z]{1,10}-\d{1,12}$/.test(value) ? value.toUpperCase() : undefined;
}

/**
 * Which entity a call acted on: the entity it returned (a create's new id), else the first id-like
 * argument (`epic_id`, `user_story`, …), else the id in a resource URI (`epic://EP-001/hierarchy`).
 * Only strings that parse as reference ids are kept, so free text never reaches the audit table.
 */
export function referenceOf(args: unknown, value?: unknown, uri?: string): string | undefined {
  if (isPlainObject(value)) {
    const own = asReference(value.reference_id);
    if (own) return own;
  }
  if (isPlainObject(args)) {
    for (const [key, arg] of Object.entries(args)) {
      if (!(key.endsWith("_id") || key === "user_story")) continue;
      const ref = asReference(arg);
      if (ref) return ref;
    }
  }
  if (uri) {
    const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)/i.exec(uri);
    if (m) return asReference(safeDecode(m[1] as string));
  }
  return undefined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text; // a malformed escape is no reference id either way
  }
}

/**
 * The variables of `uri` for a resource, or undefined. A `match` that throws on a malformed URI (a bad
 * percent-escape) means "not this resource", never an internal error; a DomainError it throws is the
 * resource's own answer and goes to the client.
 */
export function matchResource(
  resource: { match(uri: string): Record<string, string> | undefined },
  uri: string,
): Record<string, string> | undefined {
  try {
    return resource.match(uri);
  } catch (error) {
    if (isDomainError(error)) throw error;
    return undefined;
  }
}

export function errorCodeOf(error: unknown): string {
  // A round of a multi-round-trip request that ended asking the client: not a failure of the tool.
  if (error instanceof InputNeeded) return "input_required";
  return isDomainError(error) ? error.code : "internal";
}

/** Runs one operation, reports it to `observe` once, and returns its outcome instead of throwing. */
export async function runOperation<T>(
  observe: OperationObserver | undefined,
  method: OperationMethod,
  target: string,
  args: unknown,
  fn: (op: Operation) => Promise<T> | T,
  uri?: string,
): Promise<Outcome<T>> {
  const op: Operation = { method, target, args, startedAt: performance.now(), recorded: false };
  if (uri !== undefined) op.uri = uri;
  try {
    const value = await fn(op);
    if (observe) observe(eventOf(op, "ok", referenceOf(args, "output" in op ? op.output : value, uri)));
    return { ok: true, value };
  } catch (error) {
    if (observe) observe(eventOf(op, "error", referenceOf(args, undefined, uri), errorCodeOf(error)));
    return { ok: false, error };
  }
}

/** The event for a finished operation; optional fields only when they have a value (every call builds one). */
function eventOf(
  op: Operation,
  outcome: "ok" | "error",
  referenceId: string | undefined,
  errorCode?: string,
): OperationEvent {
  const event: OperationEvent = { method: op.method, target: op.target, outcome, durationMs: elapsedMs(op) };
  if (referenceId !== undefined) event.referenceId = referenceId;
  if (errorCode !== undefined) event.errorCode = errorCode;
  if (op.recorded) event.recorded = true;
  return event;
}

/** A call naming a tool or prompt the registry does not have: still one audit row. */
export function observeUnknown(
  observe: OperationObserver | undefined,
  method: OperationMethod,
  target: string,
  errorCode: "unknown_tool" | "unknown_prompt" | "not_found",
): void {
  observe?.({ method, target, outcome: "error", errorCode, durationMs: 0 });
}

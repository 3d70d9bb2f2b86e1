/**
 * Multi-round-trip requests (MCP 2026-07-28, SEP-2322), once for every face that can carry them: a
 * handler's `ctx.input(requests)` resolves from the answers this request carries — those of earlier
 * rounds in the signed `requestState` (request-state.ts), the new ones in `inputResponses` — or ends the
 * run with `InputNeeded`, which the protocol core (methods.ts) answers as an `input_required` result:
 * the requests still unanswered and a new state holding every answer the handler has used so far. The
 * client retries the same request with its answers and that state; the handler runs again from its start.
 *
 * Nothing is kept between rounds. Answers from the state win over a resent `inputResponses` entry with
 * the same key; keys the handler did not ask for are ignored; an answer that does not fit its question
 * is refused naming the field (input-answers.ts). What the client can answer is what it declared
 * (`clientCapabilities` of the request); the SDK refuses an `input_required` result asking for more with
 * -32021, so a handler that can do without checks `ctx.canAsk(kind)` first.
 */
import { DomainError } from "../core/errors.js";
import type { InputAnswer, InputKind, InputRequest } from "../core/registry.js";
import { answerProblems } from "./input-answers.js";
import { openState, requestBinding, type StateBinding, sealState } from "./request-state.js";

/** What a face that can carry input requests gives the core for one request (MethodEnv.input). */
export interface InputExchange {
  /** The client capabilities the request declared (`io.modelcontextprotocol/clientCapabilities`). */
  capabilities: Record<string, unknown> | undefined;
  /** `inputResponses` as the client sent them (untrusted). */
  responses: Record<string, unknown> | undefined;
  /** `requestState` as the client sent it (untrusted). */
  state: string | undefined;
  /** The HMAC key states are signed with (request-state.ts `stateKeyFrom`). */
  key: CryptoKey | Promise<CryptoKey>;
  /** Who is calling, as states are bound to it: workspace, user and credential. */
  caller: string;
  now?: () => number;
}

/** Thrown by `ctx.input` to end a run that needs answers the request does not carry. */
export class InputNeeded extends Error {
  constructor(
    readonly requests: Record<string, InputRequest>,
    readonly answers: Record<string, InputAnswer>,
  ) {
    super(`input required: ${Object.keys(requests).join(", ")}`);
  }
}

/** One request's conversation: the context functions handed to the handler, and how to end a round. */
export interface Conversation {
  input(requests: Record<string, InputRequest>): Promise<Record<string, InputAnswer>>;
  canAsk(kind: InputKind): boolean;
  /** The `input_required` result for a run that ended with `needed`. */
  inputRequired(needed: InputNeeded): Promise<Record<string, unknown>>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Opens the request's conversation: verifies its state (a StateRefused error when it is not this
 * server's, for this caller and request, and current) and returns what the handler's context needs.
 */
export async function openConversation(
  exchange: InputExchange,
  method: string,
  name: string,
  args: unknown,
): Promise<Conversation> {
  const now = exchange.now ?? Date.now;
  const binding: StateBinding = { caller: exchange.caller, request: requestBinding(method, name, args) };
  const earlier =
    exchange.state === undefined ? {} : await openState(await exchange.key, binding, exchange.state, now());
  const sent = exchange.responses ?? {};
  const used: Record<string, InputAnswer> = {};
  return {
    canAsk: (kind) => isObject(exchange.capabilities) && exchange.capabilities[kind] !== undefined,
    async input(requests) {
      const missing: Record<string, InputRequest> = {};
      for (const [key, request] of Object.entries(requests)) {
        const fromState = Object.hasOwn(earlier, key) ? earlier[key] : undefined;
        const answer = fromState ?? (Object.hasOwn(sent, key) ? sent[key] : undefined);
        if (!isObject(answer)) {
          missing[key] = request;
          continue;
        }
        if (fromState === undefined) {
          const problems = answerProblems(key, request, answer);
          if (problems.length > 0) {
            const list = problems.map((p) => `${p.field}: ${p.message}`).join("; ");
            throw DomainError.invalid(`The answer to ${key} does not fit its question: ${list}`, problems);
          }
        }
        used[key] = answer;
      }
      if (Object.keys(missing).length > 0) throw new InputNeeded(missing, { ...used });
      return Object.fromEntries(Object.keys(requests).map((key) => [key, used[key] as InputAnswer]));
    },
    async inputRequired(needed) {
      return {
        resultType: "input_required",
        inputRequests: needed.requests,
        requestState: await sealState(await exchange.key, binding, needed.answers, now()),
      };
    },
  };
}

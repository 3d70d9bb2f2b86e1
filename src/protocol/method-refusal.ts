/**
 * How a method fails: a `Refusal` thrown inside a method and caught once in `handleMethod`, any other
 * failure turned into the error to send (`failureOf`, which logs the unexpected ones once), and params
 * checked against the SDK's request schema for their method (`paramsOf`: -32602 naming the field).
 */
import { InitializeRequestParamsSchema, InitializeRequestSchema } from "@modelcontextprotocol/core";
import type * as z from "zod";
import { DomainError, type FieldError, isDomainError } from "../core/errors.js";
import type { BaseContext } from "../core/registry.js";
import type { MethodEnv, ToolErrorResult } from "./method-env.js";
import { domainRpcError, internalMessage, invalidParams, type RpcError } from "./rpc-errors.js";

/** A failure to answer with, thrown inside a method and caught once in `handleMethod`. */
export class Refusal extends Error {
  constructor(
    readonly error: RpcError,
    readonly toolResult?: ToolErrorResult,
  ) {
    super(error.message);
  }
}

/**
 * The face's internal-error hook, which must not break the promise that handleMethod never throws: a hook
 * that throws (a test harness that wants to see the failure) has its own message shown instead.
 */
function reportInternal<Ctx extends BaseContext>(env: MethodEnv<Ctx>, error: unknown, where: string) {
  try {
    return env.onInternalError(error, where);
  } catch (thrown) {
    return thrown instanceof Error ? thrown.message : String(thrown);
  }
}

/** Any failure of a handler → the error to send; unexpected ones are logged here, once. */
export function failureOf<Ctx extends BaseContext>(
  env: MethodEnv<Ctx>,
  error: unknown,
  where: string,
): RpcError {
  if (error instanceof Refusal) return error.error;
  if (isDomainError(error)) {
    // An internal or unavailable DomainError's message is written for the client; it is logged too.
    if (error.code === "internal" || error.code === "unavailable") reportInternal(env, error, where);
    return domainRpcError(error, env.correlationId);
  }
  const shown = reportInternal(env, error, where) ?? internalMessage(env.correlationId);
  return domainRpcError(new DomainError("internal", shown), env.correlationId);
}

/**
 * initialize checks the fields it is given with the SDK's schema but needs none of them: the server keeps
 * no handshake state, and the plain JSON-RPC face is documented to answer a bare `initialize`.
 */
export const LenientInitialize = InitializeRequestSchema.extend({
  params: InitializeRequestParamsSchema.partial().optional(),
});

type ParamsOf<S extends z.ZodType> = NonNullable<(z.output<S> & { params?: unknown })["params"]>;

/** Checks a request against the SDK's schema for its method; returns its params. */
export function paramsOf<S extends z.ZodType>(schema: S, method: string, params: unknown): ParamsOf<S> {
  const parsed = (schema as unknown as z.ZodType).safeParse({
    method,
    ...(params === undefined ? {} : { params }),
  });
  if (parsed.success) return ((parsed.data as { params?: unknown }).params ?? {}) as ParamsOf<S>;
  const errors: FieldError[] = parsed.error.issues.map((issue) => {
    const path = issue.path.map(String);
    // zod says "Invalid input: expected string, received undefined" for a field that is not there.
    const message = / received undefined$/.test(issue.message) ? "Required" : issue.message;
    return { field: path.length > 0 ? path.join(".") : "(request)", message };
  });
  throw new Refusal(invalidParams(method, errors));
}

/**
 * The one error class of the domain. Every face (MCP over stdio or HTTP, plain JSON-RPC, the admin API)
 * turns it into its own shape through one mapping in `protocol/` or `http/`; see DESIGN's error table.
 */
export type DomainErrorCode =
  | "invalid_input" // arguments fail their schema or format → -32602 / tool isError naming the field
  | "not_found" // entity or resource not found → -32002 with data.reference_id
  | "conflict" // duplicate title, stale revision → -32009
  | "forbidden" // role does not allow it → 403 / -32003
  | "unauthorized" // no / bad / expired / revoked token → 401 / -32001
  | "rate_limited" // → 429 / -32029
  | "unavailable" // a dependency (database, file system) cannot serve now
  | "internal"; // anything else; details only in the log

export interface FieldError {
  /** Dotted path of the offending field, e.g. `priority` or `pages.3.path`. */
  field: string;
  message: string;
}

export interface DomainErrorDetails {
  /** Per-field problems, for `invalid_input`. */
  errors?: FieldError[];
  /** The reference id (or name, or URI) that was not found or conflicted. */
  reference_id?: string;
  /** Anything else a client may use to correct the call (never secrets). */
  [key: string]: unknown;
}

export class DomainError extends Error {
  override readonly name = "DomainError";
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly details: DomainErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static invalid(message: string, errors: FieldError[] = []): DomainError {
    return new DomainError("invalid_input", message, errors.length > 0 ? { errors } : {});
  }

  static notFound(message: string, referenceId?: string): DomainError {
    return new DomainError(
      "not_found",
      message,
      referenceId === undefined ? {} : { reference_id: referenceId },
    );
  }

  static conflict(message: string, details: DomainErrorDetails = {}): DomainError {
    return new DomainError("conflict", message, details);
  }

  static forbidden(message: string): DomainError {
    return new DomainError("forbidden", message);
  }
}

export function isDomainError(err: unknown): err is DomainError {
  return err instanceof DomainError;
}

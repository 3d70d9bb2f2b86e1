/**
 * Hrana-over-HTTP v2 wire format (JSON) for the local libSQL dev endpoint: request parsing with messages
 * that say what was wrong, and value encoding. The shapes follow the Hrana spec's shared structures
 * (Stmt, Batch, BatchCond, StmtResult, BatchResult, Value, Error). Pitfalls the format forces on us:
 * integers travel as decimal strings, blobs as base64, floats as JSON numbers.
 */
import * as z from "zod";

export type HranaValue =
  | { type: "null" }
  | { type: "integer"; value: string }
  | { type: "float"; value: number }
  | { type: "text"; value: string }
  | { type: "blob"; base64: string };

export interface HranaError {
  message: string;
  code?: string | null;
}

export type BatchCond =
  | { type: "ok"; step: number }
  | { type: "error"; step: number }
  | { type: "not"; cond: BatchCond }
  | { type: "and"; conds: BatchCond[] }
  | { type: "or"; conds: BatchCond[] }
  | { type: "is_autocommit" };

const valueSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("null") }),
  z.object({
    type: z.literal("integer"),
    value: z.string().regex(/^-?\d+$/, "must be a decimal integer string"),
  }),
  z.object({ type: z.literal("float"), value: z.number() }),
  z.object({ type: z.literal("text"), value: z.string() }),
  z.object({ type: z.literal("blob"), base64: z.string() }),
]);

const condSchema: z.ZodType<BatchCond> = z.lazy(() =>
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("ok"), step: z.number().int().nonnegative() }),
    z.object({ type: z.literal("error"), step: z.number().int().nonnegative() }),
    z.object({ type: z.literal("not"), cond: condSchema }),
    z.object({ type: z.literal("and"), conds: z.array(condSchema) }),
    z.object({ type: z.literal("or"), conds: z.array(condSchema) }),
    z.object({ type: z.literal("is_autocommit") }),
  ]),
);

const sqlId = z.number().int();

export const stmtSchema = z.object({
  sql: z.string().nullish(),
  sql_id: sqlId.nullish(),
  args: z.array(valueSchema).optional(),
  named_args: z.array(z.object({ name: z.string(), value: valueSchema })).optional(),
  want_rows: z.boolean().optional(),
});
export type HranaStmt = z.infer<typeof stmtSchema>;

export const batchSchema = z.object({
  steps: z.array(z.object({ condition: condSchema.nullish(), stmt: stmtSchema })),
});
export type HranaBatch = z.infer<typeof batchSchema>;

export const streamRequestSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("close") }),
  z.object({ type: z.literal("execute"), stmt: stmtSchema }),
  z.object({ type: z.literal("batch"), batch: batchSchema }),
  z.object({ type: z.literal("sequence"), sql: z.string().nullish(), sql_id: sqlId.nullish() }),
  z.object({ type: z.literal("describe"), sql: z.string().nullish(), sql_id: sqlId.nullish() }),
  z.object({ type: z.literal("store_sql"), sql_id: sqlId, sql: z.string() }),
  z.object({ type: z.literal("close_sql"), sql_id: sqlId }),
  z.object({ type: z.literal("get_autocommit") }),
]);
export type StreamRequest = z.infer<typeof streamRequestSchema>;

export const pipelineBodySchema = z.object({
  baton: z.string().nullish(),
  // Each request is checked on its own, so one bad request fails alone (the spec runs every request).
  requests: z.array(z.unknown()),
});

export interface StmtResult {
  cols: Array<{ name: string | null; decltype: string | null }>;
  rows: HranaValue[][];
  affected_row_count: number;
  last_insert_rowid: string | null;
}

export interface BatchResult {
  step_results: Array<StmtResult | null>;
  step_errors: Array<HranaError | null>;
}

export type StreamResponse =
  | { type: "close" }
  | { type: "execute"; result: StmtResult }
  | { type: "batch"; result: BatchResult }
  | { type: "sequence" }
  | { type: "store_sql" }
  | { type: "close_sql" }
  | { type: "get_autocommit"; is_autocommit: boolean };

export type StreamResult = { type: "ok"; response: StreamResponse } | { type: "error"; error: HranaError };

/** A request that breaks the protocol (as opposed to SQL that fails): reported with this code. */
export class HranaProtocolError extends Error {
  readonly code = "HRANA_PROTO_ERROR";
}

/** Turns a zod failure into one line naming each bad field, e.g. `requests[0].stmt.args[1].value: …`. */
export function describeIssues(error: z.ZodError, root: string): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.reduce<string>(
        (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : `${acc}.${String(key)}`),
        root,
      );
      return `${path}: ${issue.message}`;
    })
    .join("; ");
}

const MIN_I64 = -(2n ** 63n);
const MAX_I64 = 2n ** 63n - 1n;

/** Wire value → a value libsql binds with the same SQLite type (bigint → INTEGER, number → REAL). */
export function decodeValue(value: z.infer<typeof valueSchema>): null | bigint | number | string | Buffer {
  switch (value.type) {
    case "null":
      return null;
    case "integer": {
      const n = BigInt(value.value);
      if (n < MIN_I64 || n > MAX_I64) {
        throw new HranaProtocolError(`Integer ${value.value} does not fit in 64 bits (SQLite INTEGER).`);
      }
      return n;
    }
    case "float":
      return value.value;
    case "text":
      return value.value;
    case "blob":
      return Buffer.from(value.base64, "base64");
  }
}

/** libsql value (read with safeIntegers) → wire value. */
export function encodeValue(value: unknown): HranaValue {
  if (value === null || value === undefined) return { type: "null" };
  if (typeof value === "bigint") return { type: "integer", value: value.toString() };
  if (typeof value === "number") return { type: "float", value };
  if (typeof value === "string") return { type: "text", value };
  if (value instanceof Uint8Array) return { type: "blob", base64: Buffer.from(value).toString("base64") };
  if (value instanceof ArrayBuffer) return { type: "blob", base64: Buffer.from(value).toString("base64") };
  throw new Error(`Unexpected value type from libsql: ${typeof value}`);
}

/**
 * JSON has no Infinity, but a REAL column can hold one. `1e999` is valid JSON that every parser reads
 * back as Infinity, so non-finite floats are written that way instead of turning into `null`.
 */
export function toJson(body: unknown): string {
  const marker = `\u0000inf${Math.random().toString(36).slice(2)}`;
  let sawInfinity = false;
  const text = JSON.stringify(body, (_key, value: unknown) => {
    if (typeof value === "number" && !Number.isFinite(value) && !Number.isNaN(value)) {
      sawInfinity = true;
      return value > 0 ? `${marker}+` : `${marker}-`;
    }
    return value;
  });
  if (!sawInfinity) return text;
  const encoded = JSON.stringify(marker).slice(1, -1);
  return text.replaceAll(`"${encoded}+"`, "1e999").replaceAll(`"${encoded}-"`, "-1e999");
}

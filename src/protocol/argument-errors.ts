/**
 * Argument errors that say how to fix the call (issue item 13), for every face at once: compile.ts turns
 * them and zod's issues into the one -32602 (`/api/v1/mcp`) / isError text (`/mcp`, stdio).
 *
 * Tool inputs are strict: an argument the tool does not take is refused, never silently dropped (a model
 * that wrote `id` for `requirement_id` must learn it, not get "requirement_id: required" alone or, worse,
 * an update that ignored half of what it sent). The closest valid name is suggested.
 */
import type { z } from "zod";
import type { FieldError } from "../core/errors.js";

interface ZodDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  element?: z.ZodType;
  in?: z.ZodType;
}

function defOf(schema: z.ZodType): ZodDef {
  return (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
}

/** The schema under optional/nullable/default/pipe wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let i = 0; i < 20; i++) {
    const def = defOf(s);
    const inner = def.innerType ?? (def.type === "pipe" ? def.in : undefined);
    if (!inner) return s;
    s = inner;
  }
  return s;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `epicId`, `epic-id`, `EPIC_ID` → `["epic", "id"]`. */
function tokens(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 0);
}

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`: `titel` → `title` is one. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => (d[i] as number[])[j] as number;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The valid name `unknown` most likely meant, or undefined when none is close: a small edit distance
 * (typos, `epicId` for `epic_id`) wins, else the name sharing most words, first in schema order
 * (`id` → `requirement_id`).
 */
export function closestName(unknown: string, valid: string[]): string | undefined {
  const mine = tokens(unknown);
  const flat = mine.join("");
  let best: { name: string; rank: [number, number, number] } | undefined;
  valid.forEach((name, index) => {
    const theirs = tokens(name);
    const distance = editDistance(flat, theirs.join(""));
    const typo = distance <= Math.max(1, Math.floor(Math.max(flat.length, 3) / 3));
    const shared = mine.filter((t) => theirs.includes(t)).length;
    if (!typo && shared === 0) return;
    // Among names sharing a word, the first in the schema: a tool lists its own entity's id first.
    const rank: [number, number, number] = typo ? [0, distance, index] : [1, -shared, index];
    if (!best || rankLess(rank, best.rank)) best = { name, rank };
  });
  return best?.name;
}

/** Lexicographic `<` of rank tuples. */
function rankLess(a: [number, number, number], b: [number, number, number]): boolean {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number);
  return false;
}

export function unknownArgumentMessage(name: string, valid: string[]): string {
  const close = closestName(name, valid);
  if (close) return `Unknown argument \`${name}\`; did you mean \`${close}\`?`;
  return valid.length > 0
    ? `Unknown argument \`${name}\`. Valid arguments: ${valid.map((v) => `\`${v}\``).join(", ")}.`
    : `Unknown argument \`${name}\`: this takes no arguments.`;
}

/**
 * True when `value` is the common flat call: a plain object whose keys `schema` (an object schema) all
 * names, or whose schema takes any key, and whose values are all primitives. Then `unknownArguments` has
 * nothing to report and nothing nested to walk, so the walk (and its arrays per key) can be skipped.
 */
export function flatKnownArguments(schema: z.ZodType, value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const def = defOf(unwrap(schema));
  if (def.type !== "object" || !def.shape) return false;
  const open = def.catchall !== undefined && defOf(def.catchall).type !== "never";
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const v = value[key];
    if (typeof v === "object" && v !== null) return false;
    if (!open && !Object.hasOwn(def.shape, key)) return false;
  }
  return true;
}

/**
 * Keys of `value` that `schema` does not define, at any depth of objects and arrays the schema describes,
 * each with a did-you-mean. Objects that accept any key (`.loose()`, a catchall) are left alone.
 */
export function unknownArguments(schema: z.ZodType, value: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const stack: { schema: z.ZodType; value: unknown; path: (string | number)[] }[] = [
    { schema, value, path: [] },
  ];
  while (stack.length > 0) {
    const item = stack.pop() as (typeof stack)[number];
    const s = unwrap(item.schema);
    const def = defOf(s);
    if (def.type === "object" && def.shape && isPlainObject(item.value)) {
      const open = def.catchall !== undefined && defOf(def.catchall).type !== "never";
      const valid = Object.keys(def.shape);
      for (const [key, v] of Object.entries(item.value)) {
        const child = Object.hasOwn(def.shape, key) ? def.shape[key] : undefined;
        if (child) stack.push({ schema: child, value: v, path: [...item.path, key] });
        else if (!open)
          errors.push({ field: [...item.path, key].join("."), message: unknownArgumentMessage(key, valid) });
      }
    } else if (def.type === "array" && def.element && Array.isArray(item.value)) {
      const element = def.element;
      item.value.forEach((v, i) => {
        stack.push({ schema: element, value: v, path: [...item.path, i] });
      });
    }
  }
  return errors.reverse();
}

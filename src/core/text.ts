/**
 * Text that cannot be stored as sent (issue item 5). libSQL cuts a bound string at U+0000, and a lone UTF-16
 * surrogate has no UTF-8 form (it would come back as U+FFFD). Such a value is refused, naming the field,
 * rather than stored as something else: nothing acknowledged may differ from what was sent. Every other
 * code point, U+FFFF and the other noncharacters included, is valid text and is kept exactly.
 */
import type { FieldError } from "./errors.js";

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `text` cannot be stored exactly, or undefined when it can. */
export function unstorableTextProblem(text: string): string | undefined {
  const nul = text.indexOf("\u0000");
  if (nul >= 0)
    return `contains a NUL character (U+0000) at position ${nul}, which cannot be stored; remove it`;
  const lone = LONE_SURROGATE.exec(text);
  if (lone) {
    const code = (lone[0] as string).charCodeAt(0).toString(16).toUpperCase();
    return `contains an unpaired UTF-16 surrogate (U+${code}) at position ${lone.index}, which is not valid Unicode text and cannot be stored; send well-formed text`;
  }
  return undefined;
}

interface Node {
  value: unknown;
  key: string | number | undefined;
  parent: Node | undefined;
}

function pathOf(node: Node, prefix: (string | number)[]): string {
  const keys: (string | number)[] = [];
  for (let n: Node | undefined = node; n?.key !== undefined; n = n.parent) keys.push(n.key);
  const path = [...prefix, ...keys.reverse()];
  return path.length > 0 ? path.join(".") : "(arguments)";
}

/**
 * Every string inside `value` (object values and array items, at any depth) that cannot be stored, named by
 * its dotted path (`pages.0.content`). Iterative, and paths are built only for a bad string: a hostile body
 * may nest thousands of levels deep.
 */
export function unstorableText(value: unknown, prefix: (string | number)[] = []): FieldError[] {
  const errors: FieldError[] = [];
  const stack: Node[] = [{ value, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    const v = node.value;
    if (typeof v === "string") {
      const problem = unstorableTextProblem(v);
      if (problem) errors.push({ field: pathOf(node, prefix), message: problem });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: node });
    } else if (typeof v === "object" && v !== null) {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i] as [string, unknown];
        stack.push({ value: item, key, parent: node });
      }
    }
  }
  return errors;
}

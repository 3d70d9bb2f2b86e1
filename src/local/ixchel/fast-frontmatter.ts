/**
 * A fast path for the frontmatter most entity files have: `key: value` lines, flow lists `[a, b]`, block
 * lists of plain values or of small `key: value` maps, and `{id: …, type: …}` items. It returns exactly what
 * the `yaml` package returns for such text (a property test compares the two on generated input), and
 * `undefined` for anything else: quotes, comments, anchors, blank lines, numbers, booleans, nulls, nesting.
 * The `yaml` package then parses the file, and it alone reports errors. Parsing 10,000 files through it
 * costs seconds; this path costs milliseconds (issue 6, item 8: a cold sync of 10,000 entities ≤ 5 s).
 */

const KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?$/;
const ITEM = /^( *)- (\S.*)$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})?)?$/;
/** Words the YAML core schema reads as null or booleans: left to the real parser. */
const RESERVED = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;

/** Whether a word starting with this character code could be one of RESERVED (n, N, t, T, f, F). */
const mayBeReserved = (c: number) => c === 110 || c === 116 || c === 102 || c === 78 || c === 84 || c === 70;

/** Keys are scalars too (`False:` is the key "false"), and `__proto__` would not be an own property here. */
function badKey(key: string): boolean {
  return key === "__proto__" || key.length > 200 || (mayBeReserved(key.charCodeAt(0)) && RESERVED.test(key));
}

/**
 * A plain scalar that YAML reads as this very string, or undefined when that is not certain. The first
 * character decides which tests can apply (a cold sync runs this on every value of every file).
 */
function plain(text: string, inFlow: boolean): string | undefined {
  const s = text.trim();
  if (s === "") return undefined;
  const c = s.charCodeAt(0);
  if (c >= 48 && c <= 57) return TIMESTAMP.test(s) ? s : undefined;
  if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)) return undefined;
  if (mayBeReserved(c) && RESERVED.test(s)) return undefined;
  if (s.includes(": ") || s.includes(" #") || s.endsWith(":") || s.includes("\t")) return undefined;
  if (inFlow && FLOW_INDICATOR.test(s)) return undefined;
  return s;
}
const FLOW_INDICATOR = /[,[\]{}]/;

function flowList(text: string): string[] | undefined {
  if (!text.endsWith("]")) return undefined;
  const inner = text.slice(1, -1);
  if (inner.trim() === "") return [];
  // The split's own array, filled in place: it is exactly as long as the list (an array grown by push keeps
  // room for 16; a cold sync keeps tens of thousands of these, and the GC copies every slot).
  const items = inner.split(",");
  for (let k = 0; k < items.length; k++) {
    const value = plain(items[k] as string, true);
    if (value === undefined) return undefined;
    items[k] = value;
  }
  return items;
}

function flowMap(text: string): Record<string, string> | undefined {
  if (!text.endsWith("}")) return undefined;
  const inner = text.slice(1, -1);
  if (inner.trim() === "") return undefined;
  const map: Record<string, string> = {};
  for (const part of inner.split(",")) {
    const m = /^ *([A-Za-z_][A-Za-z0-9_-]*): +(.*)$/.exec(part);
    if (!m || Object.hasOwn(map, m[1] as string) || badKey(m[1] as string)) return undefined;
    const value = plain(m[2] as string, true);
    if (value === undefined) return undefined;
    map[m[1] as string] = value;
  }
  return map;
}

function value(text: string): unknown {
  if (text.startsWith("[")) return flowList(text);
  if (text.startsWith("{")) return flowMap(text);
  return plain(text, false);
}

/** The frontmatter as data, or `undefined` when the text is not in the simple subset. */
export function parseSimpleFrontmatter(yaml: string): Record<string, unknown> | undefined {
  // A lone carriage return is a line break to YAML; a long key is an error there (implicit keys ≤ 1024).
  const cr = yaml.includes("\r");
  if (cr && /\r(?!\n)/.test(yaml)) return undefined;
  // Split on CRLF or LF once: no per-line trimming of a carriage return (most files have none).
  const lines = cr ? yaml.split(/\r?\n/) : yaml.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const out: Record<string, unknown> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const m = KEY.exec(line);
    if (!m) return undefined;
    const key = m[1] as string;
    if (Object.hasOwn(out, key) || badKey(key)) return undefined;
    const rest = (m[2] ?? "").trimEnd();
    if (rest !== "") {
      const v = value(rest);
      if (v === undefined) return undefined;
      out[key] = v;
      continue;
    }
    // `key:` then a block list; anything else under it (or nothing) goes to the real parser.
    const items: unknown[] = [];
    let indent: number | undefined;
    while (i + 1 < lines.length) {
      const next = lines[i + 1] as string;
      const item = ITEM.exec(next);
      if (!item) break;
      const width = (item[1] as string).length;
      if (indent === undefined) indent = width;
      else if (width !== indent) return undefined;
      i++;
      const content = (item[2] as string).trimEnd();
      const pair = KEY.exec(content);
      if (!pair) {
        const v = value(content);
        if (v === undefined) return undefined;
        items.push(v);
        continue;
      }
      // `- id: x` followed by `  type: y` lines: a small map.
      const map: Record<string, string> = {};
      const first = plain(pair[2] ?? "", false);
      if (first === undefined || badKey(pair[1] as string)) return undefined;
      map[pair[1] as string] = first;
      const inner = " ".repeat(width + 2);
      while (i + 1 < lines.length) {
        const cont = lines[i + 1] as string;
        if (!cont.startsWith(inner) || cont[inner.length] === " ") break;
        const kv = KEY.exec(cont.slice(inner.length));
        if (!kv || Object.hasOwn(map, kv[1] as string) || badKey(kv[1] as string)) return undefined;
        const v = plain(kv[2] ?? "", false);
        if (v === undefined) return undefined;
        map[kv[1] as string] = v;
        i++;
      }
      items.push(map);
    }
    if (items.length === 0) return undefined;
    out[key] = items.slice(); // exactly as long as the list (see flowList)
  }
  return out;
}

/**
 * A fast path for the frontmatter most entity files have: `key: value` lines, flow lists `[a, b]`, block
 * lists of plain values or of small `key: value` maps, and `{id: …, type: …}` items. It returns exactly what
 * the `yaml` package returns for such text (a property test compares the two on generated input), and
 * `undefined` for anything else: quotes, comments, anchors, blank lines, numbers, booleans, nulls, nesting.
 * The `yaml` package then parses the file, and it alone reports errors. Parsing 10,000 files through it
 * costs seconds; this path costs milliseconds (issue 6, item 8: a cold sync of 10,000 entities ≤ 5 s).
 *
 * A cold sync runs this on every line of every file (issue 16, item 6: a cold sync ≤ 2× reading and hashing
 * the files), so it scans the text in place: no lines cut out, no regular expression per line, no list
 * split, and a value is sliced once, trimmed. Where the text says "spaces" below, it means what JavaScript's
 * `trim` and `\s` remove or match (isSpace).
 */

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})?)?$/;
/** Words the YAML core schema reads as null or booleans: left to the real parser. */
const RESERVED = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;

/** Whether a word starting with this character code could be one of RESERVED (n, N, t, T, f, F). */
const mayBeReserved = (c: number) => c === 110 || c === 116 || c === 102 || c === 78 || c === 84 || c === 70;

/** Keys are scalars too (`False:` is the key "false"), and `__proto__` would not be an own property here. */
function badKey(key: string): boolean {
  return key === "__proto__" || key.length > 200 || (mayBeReserved(key.charCodeAt(0)) && RESERVED.test(key));
}

/** `[A-Za-z_]`: how a key, and a plain scalar we accept, starts. */
const isKeyStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
/** `[A-Za-z0-9_-]` */
const isKeyChar = (c: number) => isKeyStart(c) || (c >= 48 && c <= 57) || c === 45;

/** Whether JavaScript's `\s` matches this character code (the same set `trim` removes). */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * A plain scalar that YAML reads as this very string, or undefined when that is not certain: text[from, to)
 * trimmed. The first character decides which tests can apply.
 */
function plainAt(text: string, from: number, to: number, inFlow: boolean): string | undefined {
  while (from < to && isSpace(text.charCodeAt(from))) from++;
  while (to > from && isSpace(text.charCodeAt(to - 1))) to--;
  if (from === to) return undefined;
  const c = text.charCodeAt(from);
  if (c >= 48 && c <= 57) {
    const s = text.slice(from, to);
    return TIMESTAMP.test(s) ? s : undefined;
  }
  if (!isKeyStart(c) || text.charCodeAt(to - 1) === 58) return undefined; // ends with ":"
  const length = to - from;
  let slot = -1;
  if (length < SHORT) {
    slot = (length * 7 + c * 31 + text.charCodeAt(to - 1) * 3 + text.charCodeAt(from + (length >> 1))) & 1023;
    const known = VALUES[slot];
    if (known !== undefined && known.length === length) {
      let k = 1;
      while (k < length && known.charCodeAt(k) === text.charCodeAt(from + k)) k++;
      if (k === length && known.charCodeAt(0) === c) return known;
    }
  }
  const s = text.slice(from, to);
  if (s.includes(": ") || s.includes(" #") || s.includes("\t")) return undefined;
  const flow = FLOW_INDICATOR.test(s);
  if (inFlow && flow) return undefined;
  if (mayBeReserved(c) && (s.length === 4 || s.length === 5) && RESERVED.test(s)) return undefined;
  if (slot !== -1 && !flow) VALUES[slot] = s; // valid in and out of flow collections
  return s;
}

/** Below this length a slice is a copy anyway (V8 slices longer strings): short values are shared. */
const SHORT = 13;
/**
 * Short plain values met before (types, statuses, tags: the vocabulary files repeat), by a hash of length and
 * a few characters: one string each instead of one per file that the graph keeps.
 */
const VALUES: (string | undefined)[] = new Array(1024).fill(undefined);
const FLOW_INDICATOR = /[,[\]{}]/;

function plain(text: string, inFlow: boolean): string | undefined {
  return plainAt(text, 0, text.length, inFlow);
}

/** `[a, b]` as text[from, to) (trimmed, starting with `[`). */
function flowList(text: string, from: number, to: number): string[] | undefined {
  if (text.charCodeAt(to - 1) !== 93) return undefined;
  const open = from + 1;
  const close = to - 1;
  let blank = true;
  let count = 1;
  for (let k = open; k < close; k++) {
    const c = text.charCodeAt(k);
    if (c === 44) count++;
    else if (blank && !isSpace(c)) blank = false;
  }
  if (blank && count === 1) return [];
  // Exactly as long as the list (an array grown by push keeps room for 16; a cold sync keeps tens of
  // thousands of these, and the GC copies every slot).
  const items = new Array<string>(count);
  let start = open;
  for (let k = 0; k < count; k++) {
    const comma = k === count - 1 ? close : text.indexOf(",", start);
    const value = plainAt(text, start, comma, true);
    if (value === undefined) return undefined;
    items[k] = value;
    start = comma + 1;
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

/** text[from, to), trimmed at its end: a list, a map or a plain scalar. */
function valueAt(text: string, from: number, to: number): unknown {
  while (to > from && isSpace(text.charCodeAt(to - 1))) to--;
  const c = text.charCodeAt(from);
  if (c === 91) return flowList(text, from, to);
  if (c === 123) return flowMap(text.slice(from, to));
  return plainAt(text, from, to, false);
}

/**
 * Keys met before, by a hash of their length and first and last characters: a file's keys are mostly the
 * keys of every other file (id, type, title, tags, relates_to…), and a key found here is neither cut out of
 * the text again nor checked again, and is the same string every time (a property key V8 has seen).
 */
const KEYS: (string | undefined)[] = new Array(256).fill(undefined);

/** The key text[from, colon): from KEYS when it is there, else cut out; undefined for a bad key. */
function keyAt(text: string, from: number, colon: number): string | undefined {
  const length = colon - from;
  const slot = (length * 7 + text.charCodeAt(from) * 31 + text.charCodeAt(colon - 1)) & 255;
  const known = KEYS[slot];
  if (known !== undefined && known.length === length) {
    let k = 0;
    while (k < length && known.charCodeAt(k) === text.charCodeAt(from + k)) k++;
    if (k === length) return known;
  }
  const key = text.slice(from, colon);
  if (badKey(key)) return undefined;
  KEYS[slot] = key;
  return key;
}

/**
 * The index of the `:` ending a key (`[A-Za-z_][A-Za-z0-9_-]*`) at the start of text[from, end), or -1:
 * the first half of `^key:(?: +(.*))?$`.
 */
function keyColon(text: string, from: number, end: number): number {
  if (from >= end || !isKeyStart(text.charCodeAt(from))) return -1;
  let k = from + 1;
  while (k < end && isKeyChar(text.charCodeAt(k))) k++;
  return k < end && text.charCodeAt(k) === 58 ? k : -1;
}

/**
 * The second half: after a key's colon, the index where its value starts (past the spaces), `end` when
 * nothing follows the colon, -1 when something other than a space does.
 */
function valueStart(text: string, colon: number, end: number): number {
  let v = colon + 1;
  if (v === end) return end;
  if (text.charCodeAt(v) !== 32) return -1;
  while (v < end && text.charCodeAt(v) === 32) v++;
  return v;
}

/** Where the line [start, …) ends: its line feed (nl; -1 for none: at `to`), or the CR of a CRLF. */
function lineEnd(text: string, cr: boolean, start: number, nl: number, to: number): number {
  if (nl === -1) return to;
  return cr && nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
}

/** The line feed in text[from, to), or -1. */
function lineFeed(text: string, from: number, to: number): number {
  const nl = text.indexOf("\n", from);
  return nl < to ? nl : -1;
}

/** A block list's items before they are copied out (nothing here calls itself: one list at a time). */
const gather: unknown[] = [];

/** The frontmatter as data, or `undefined` when the text is not in the simple subset. */
export function parseSimpleFrontmatter(yaml: string): Record<string, unknown> | undefined {
  return parseSimpleFrontmatterAt(yaml, 0, yaml.length);
}

/**
 * parseSimpleFrontmatter of text[from, to), read in place: an entity file's YAML without cutting it out
 * of the file's text first.
 */
export function parseSimpleFrontmatterAt(
  text: string,
  from: number,
  to: number,
): Record<string, unknown> | undefined {
  // The searches below run on the range as a string of its own (a slice: no copy), so none runs past it.
  const yaml = from === 0 && to === text.length ? text : text.slice(from, to);
  // A lone carriage return is a line break to YAML; a long key is an error there (implicit keys ≤ 1024).
  const cr = yaml.includes("\r");
  if (cr && /\r(?!\n)/.test(yaml)) return undefined;
  // So are the line and paragraph separators (which `.` in a regular expression does not match either).
  if (yaml.includes("\u2028") || yaml.includes("\u2029")) return undefined;
  // Lines are the ranges between line feeds, without the carriage return of a CRLF; the text after the last
  // line feed is a line unless it is empty.
  const out: Record<string, unknown> = {};
  let pos = from;
  while (pos < to) {
    let nl = lineFeed(text, pos, to);
    let end = lineEnd(text, cr, pos, nl, to);
    const colon = keyColon(text, pos, end);
    if (colon === -1) return undefined;
    const start = valueStart(text, colon, end);
    if (start === -1) return undefined;
    const key = keyAt(text, pos, colon);
    if (key === undefined || Object.hasOwn(out, key)) return undefined;
    pos = nl === -1 ? to : nl + 1;
    let last = end;
    while (last > start && isSpace(text.charCodeAt(last - 1))) last--;
    if (last > start) {
      const v = valueAt(text, start, last);
      if (v === undefined) return undefined;
      out[key] = v;
      continue;
    }
    // `key:` then a block list; anything else under it (or nothing) goes to the real parser. Its items are
    // gathered in `gather`, then copied at their exact length (see flowList).
    let count = 0;
    let indent: number | undefined;
    while (pos < to) {
      // An item: `^( *)- (\S.*)$`.
      nl = lineFeed(text, pos, to);
      end = lineEnd(text, cr, pos, nl, to);
      let dash = pos;
      while (dash < end && text.charCodeAt(dash) === 32) dash++;
      if (
        dash + 2 >= end ||
        text.charCodeAt(dash) !== 45 ||
        text.charCodeAt(dash + 1) !== 32 ||
        isSpace(text.charCodeAt(dash + 2))
      ) {
        break;
      }
      const width = dash - pos;
      if (indent === undefined) indent = width;
      else if (width !== indent) return undefined;
      pos = nl === -1 ? to : nl + 1;
      const itemFrom = dash + 2;
      let itemTo = end;
      while (itemTo > itemFrom && isSpace(text.charCodeAt(itemTo - 1))) itemTo--;
      const pairColon = keyColon(text, itemFrom, itemTo);
      const pairStart = pairColon === -1 ? -1 : valueStart(text, pairColon, itemTo);
      if (pairStart === -1) {
        const v = valueAt(text, itemFrom, itemTo);
        if (v === undefined) return undefined;
        gather[count++] = v;
        continue;
      }
      // `- id: x` followed by `  type: y` lines: a small map.
      const map: Record<string, string> = {};
      const firstKey = keyAt(text, itemFrom, pairColon);
      const first = plainAt(text, pairStart, itemTo, false);
      if (first === undefined || firstKey === undefined) return undefined;
      map[firstKey] = first;
      const inner = width + 2;
      while (pos < to) {
        nl = lineFeed(text, pos, to);
        end = lineEnd(text, cr, pos, nl, to);
        // The line starts with exactly `inner` spaces.
        let k = 0;
        while (k < inner && pos + k < end && text.charCodeAt(pos + k) === 32) k++;
        if (k < inner || (pos + inner < end && text.charCodeAt(pos + inner) === 32)) break;
        const keyFrom = pos + inner;
        const kvColon = keyColon(text, keyFrom, end);
        const kvStart = kvColon === -1 ? -1 : valueStart(text, kvColon, end);
        if (kvStart === -1) return undefined;
        const kvKey = keyAt(text, keyFrom, kvColon);
        if (kvKey === undefined || Object.hasOwn(map, kvKey)) return undefined;
        const v = plainAt(text, kvStart, end, false);
        if (v === undefined) return undefined;
        map[kvKey] = v;
        pos = nl === -1 ? to : nl + 1;
      }
      gather[count++] = map;
    }
    if (count === 0) return undefined;
    out[key] = gather.slice(0, count);
  }
  return out;
}

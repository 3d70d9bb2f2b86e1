/**
 * The entity kinds of an ixchel graph, their id prefixes and folders (DESIGN: ixchel decisions). Pure data
 * and string rules: no I/O.
 */

export const KINDS = [
  "decision",
  "issue",
  "idea",
  "report",
  "source",
  "citation",
  "agent",
  "session",
] as const;
export type Kind = (typeof KINDS)[number];

export const KIND_PREFIX: Record<Kind, string> = {
  decision: "dec",
  issue: "iss",
  idea: "idea",
  report: "rpt",
  source: "src",
  citation: "cite",
  agent: "agt",
  session: "ses",
};

export const KIND_FOLDER: Record<Kind, string> = {
  decision: "decisions",
  issue: "issues",
  idea: "ideas",
  report: "reports",
  source: "sources",
  citation: "citations",
  agent: "agents",
  session: "sessions",
};

const PREFIX_KIND = new Map<string, Kind>(KINDS.map((k) => [KIND_PREFIX[k], k]));
const FOLDER_KIND = new Map<string, Kind>(KINDS.map((k) => [KIND_FOLDER[k], k]));

/** Keys that describe the entity itself; every other key whose value holds ids is a link. */
export const METADATA_KEYS = new Set([
  "id",
  "type",
  "title",
  "status",
  "created_at",
  "updated_at",
  "created_by",
  "tags",
]);

/** `<prefix>-<6 to 12 lowercase hex>`. */
export const ID_PATTERN = /^(dec|iss|idea|rpt|src|cite|agt|ses)-[0-9a-f]{6,12}$/;
export const ID_FORMAT_HINT =
  "ids look like <prefix>-<6 to 12 hex digits>, e.g. dec-1a2b3c4d (prefixes: dec, iss, idea, rpt, src, cite, agt, ses)";

export function isKind(value: unknown): value is Kind {
  return typeof value === "string" && (KINDS as readonly string[]).includes(value);
}

/** The prefixes by length and first two characters (isId then compares all of them). */
const PREFIX_AT = new Map<number, string>(
  KINDS.map((k) => {
    const p = KIND_PREFIX[k];
    return [p.length * 65536 + p.charCodeAt(0) * 256 + p.charCodeAt(1), p];
  }),
);

/**
 * ID_PATTERN's test, by character codes: a cold sync checks every id and link target of the graph, and a
 * regular expression per id was a tenth of parsing a file.
 */
export function isId(value: unknown): value is string {
  if (typeof value !== "string") return false;
  const dash = value.charCodeAt(3) === 45 ? 3 : value.charCodeAt(4) === 45 ? 4 : -1;
  const length = value.length;
  if (dash === -1 || length - dash - 1 < 6 || length - dash - 1 > 12) return false;
  const prefix = PREFIX_AT.get(dash * 65536 + value.charCodeAt(0) * 256 + value.charCodeAt(1));
  if (prefix === undefined) return false;
  for (let k = 0; k < dash; k++) if (value.charCodeAt(k) !== prefix.charCodeAt(k)) return false;
  for (let k = dash + 1; k < length; k++) {
    const c = value.charCodeAt(k);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** Lookups accept any case and surrounding blanks; stored ids are lowercase. */
export function normalizeId(value: string): string {
  return value.trim().toLowerCase();
}

export function kindOfId(id: string): Kind | undefined {
  const dash = id.indexOf("-");
  return dash === -1 ? undefined : PREFIX_KIND.get(id.slice(0, dash));
}

export function kindOfFolder(folder: string): Kind | undefined {
  return FOLDER_KIND.get(folder);
}

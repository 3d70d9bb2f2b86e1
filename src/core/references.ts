/**
 * Reference ids (EP-001, US-047, REQ-1000): stored, never derived (DESIGN). A per-workspace counter per
 * prefix gives the number; it is zero-padded to three digits. Lookups accept ids case-insensitively.
 */
export const PREFIXES = {
  epic: "EP",
  user_story: "US",
  requirement: "REQ",
  acceptance_criterion: "AC",
} as const;

export type EntityKind = keyof typeof PREFIXES;
export type Prefix = (typeof PREFIXES)[EntityKind];

export function formatReference(prefix: string, n: number): string {
  return `${prefix}-${String(n).padStart(3, "0")}`;
}

/** `us-47` → `US-047`; `US-0047` → `US-047`. Returns undefined when `id` is not of this prefix. */
export function normalizeReference(prefix: string, id: string): string | undefined {
  const m = /^([A-Za-z]+)-(\d+)$/.exec(id.trim());
  if (!m || (m[1] as string).toUpperCase() !== prefix) return undefined;
  const n = Number.parseInt(m[2] as string, 10);
  if (!Number.isSafeInteger(n)) return undefined;
  return formatReference(prefix, n);
}

const KIND_OF_PREFIX = new Map<string, EntityKind>(
  (Object.entries(PREFIXES) as [EntityKind, Prefix][]).map(([kind, prefix]) => [prefix, kind]),
);

/** Which kind of entity an id names (any case), or undefined. One match, then the prefix is looked up. */
export function kindOfReference(id: string): { kind: EntityKind; reference: string } | undefined {
  const m = /^([A-Za-z]+)-(\d+)$/.exec(id.trim());
  const kind = m ? KIND_OF_PREFIX.get((m[1] as string).toUpperCase()) : undefined;
  if (!m || kind === undefined) return undefined;
  const n = Number.parseInt(m[2] as string, 10);
  if (!Number.isSafeInteger(n)) return undefined;
  return { kind, reference: formatReference(PREFIXES[kind], n) };
}

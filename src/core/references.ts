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

/** Which kind of entity an id names (any case), or undefined. */
export function kindOfReference(id: string): { kind: EntityKind; reference: string } | undefined {
  for (const [kind, prefix] of Object.entries(PREFIXES) as [EntityKind, Prefix][]) {
    const reference = normalizeReference(prefix, id);
    if (reference) return { kind, reference };
  }
  return undefined;
}

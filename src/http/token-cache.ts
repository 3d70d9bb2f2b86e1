/**
 * A short-lived cache of token lookups for one server process (issue 16): under load most requests carry
 * a token seen a moment ago, and its lookup (SHA-256, a three-join query) was a fifth of a small read.
 *
 * Correctness rules:
 * - Only successful lookups are kept, for at most `ttlMs` (default 2 s), keyed by the token itself (in
 *   this process's memory only, like the request that carried it; never logged or stored).
 * - Expiry is checked on every hit against the clock, so an expired token is refused at its expiry time.
 * - Anything on this instance that changes who a token acts as (revoking a token, adding a member or
 *   changing a role, through the admin API) calls `invalidate()`, which empties the cache before its answer
 *   is sent. A lookup that started before the change cannot put its stale answer back afterwards: entries
 *   are stored only if no invalidation happened since their lookup began (`generation`).
 * - Changes made elsewhere (the admin CLI on the same database file, another instance) are seen when the
 *   entry's `ttlMs` runs out: that is the bound on staleness there. Workers get no cache at all: isolates
 *   share nothing, so an invalidation in one could never reach the others.
 */
import type { TokenPrincipal } from "../db/tokens.repo.js";

export interface TokenCacheOptions {
  /** How long a looked-up token is trusted without asking the database again (default 2,000 ms). */
  ttlMs?: number;
  /** Entries kept at most; the oldest go first (default 10,000). */
  maxEntries?: number;
}

export class TokenCache {
  readonly ttlMs: number;
  readonly maxEntries: number;
  #entries = new Map<string, { principal: TokenPrincipal; until: number }>();
  #generation = 0;

  constructor(options: TokenCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? 2_000;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /** Read before a lookup starts; hand it back to `set`. */
  get generation(): number {
    return this.#generation;
  }

  get(token: string, nowMs: number): TokenPrincipal | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) return undefined;
    if (entry.until <= nowMs) {
      this.#entries.delete(token);
      return undefined;
    }
    return entry.principal;
  }

  /** Keeps a lookup's answer, unless the cache was invalidated after `generation` was read. */
  set(token: string, principal: TokenPrincipal, nowMs: number, generation: number): void {
    if (generation !== this.#generation) return;
    this.#entries.delete(token);
    while (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
    this.#entries.set(token, { principal, until: nowMs + this.ttlMs });
  }

  /** Records a `last_used_at` written for a cached token, so it is not written again within the minute. */
  used(token: string, at: string): void {
    const entry = this.#entries.get(token);
    if (entry) entry.principal = { ...entry.principal, lastUsedAt: at };
  }

  /** Forgets every token: call it when a token, a membership or a role may have changed. */
  invalidate(): void {
    this.#generation++;
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}

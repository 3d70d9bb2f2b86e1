/**
 * The Node engine of the RateLimiter (the Worker uses the Rate Limiting binding, rate-limit-workers.ts).
 * A sliding-window counter per key: the previous window's count, weighted by how much of it still overlaps
 * the last `windowMs`, plus the current window's count. O(1) memory per key, smooth at window edges (a fixed
 * window lets 2× the limit through around a boundary), no timers (nothing keeps the process alive).
 */
import type { RateLimiter } from "./context.js";

export interface MemoryRateLimiterOptions {
  /** Requests allowed per window. */
  limit: number;
  /** Window length; default one minute (REQLIX_RATE_LIMIT is per minute). */
  windowMs?: number;
  /** Injected clock for tests. */
  now?: () => number;
  /** Keys kept before stale ones are swept (bounded memory under many distinct callers). */
  maxKeys?: number;
}

interface Counter {
  /** Start of the current window (a multiple of windowMs). */
  start: number;
  current: number;
  previous: number;
}

export class MemoryRateLimiter implements RateLimiter {
  readonly limit: number;
  readonly windowMs: number;
  private readonly now: () => number;
  private readonly maxKeys: number;
  private readonly counters = new Map<string, Counter>();

  constructor(options: MemoryRateLimiterOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1) {
      throw new Error(`Rate limit must be a positive integer, got ${options.limit}`);
    }
    this.limit = options.limit;
    this.windowMs = options.windowMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.maxKeys = options.maxKeys ?? 100_000;
  }

  async hit(key: string): Promise<{ ok: true } | { ok: false; retryAfterSeconds: number }> {
    const now = this.now();
    const W = this.windowMs;
    const start = now - (now % W);
    let c = this.counters.get(key);
    if (!c) {
      if (this.counters.size >= this.maxKeys) this.sweep(start);
      c = { start, current: 0, previous: 0 };
      this.counters.set(key, c);
    } else if (c.start !== start) {
      // Roll forward: the window just ended becomes `previous`; an older one no longer overlaps at all.
      c.previous = start - c.start === W ? c.current : 0;
      c.current = 0;
      c.start = start;
    }
    const elapsed = now - start;
    const weight = 1 - elapsed / W;
    if (c.previous * weight + c.current + 1 <= this.limit) {
      c.current += 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: this.retryAfter(c, elapsed) };
  }

  /** Seconds until one more request would fit (refused requests are not counted, so this is exact). */
  private retryAfter(c: Counter, elapsed: number): number {
    const W = this.windowMs;
    let waitMs: number;
    if (c.current + 1 > this.limit) {
      // Only the next window helps; there the current count becomes `previous` and must decay enough.
      const decay = c.current > 0 ? Math.max(0, 1 - (this.limit - 1) / c.current) : 0;
      waitMs = W - elapsed + W * decay;
    } else {
      // Within this window: wait until the previous window's weight has decayed enough.
      waitMs = W * (1 - (this.limit - c.current - 1) / c.previous) - elapsed;
    }
    return Math.max(1, Math.ceil(waitMs / 1000));
  }

  private sweep(start: number): void {
    for (const [key, c] of this.counters) {
      if (start - c.start > this.windowMs) this.counters.delete(key);
    }
  }
}

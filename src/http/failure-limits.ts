/**
 * Failures counted through the RateLimiter seam per key; past the limit the key is refused, even with the
 * right credential, until the limiter's Retry-After has passed; successes cost nothing.
 *
 * - Web sign-in and invitations: per client address for every method, and per account (the name typed,
 *   known or not) for passwords. Unknown and known accounts are counted and refused alike, so the limit
 *   tells nothing about who exists.
 * - The OAuth token and revocation endpoints: per client address (oauth-token-route.ts).
 */
import type { RateLimiter } from "./context.js";

export class FailureLimits {
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly clock: () => Date,
  ) {}

  /** Seconds to wait before `key` may try again, or undefined when it may now. */
  blockedFor(key: string): number | undefined {
    const until = this.blockedUntil.get(key);
    if (until === undefined) return undefined;
    const wait = until - this.clock().getTime();
    if (wait > 0) return Math.ceil(wait / 1000);
    this.blockedUntil.delete(key);
    return undefined;
  }

  /** The longest wait among `keys`. */
  blockedForAny(keys: string[]): number | undefined {
    let most: number | undefined;
    for (const key of keys) {
      const wait = this.blockedFor(key);
      if (wait !== undefined && (most === undefined || wait > most)) most = wait;
    }
    return most;
  }

  async failed(key: string): Promise<void> {
    const verdict = await this.limiter.hit(key);
    if (verdict.ok) return;
    if (this.blockedUntil.size >= 10_000)
      this.blockedUntil.delete(this.blockedUntil.keys().next().value as string);
    this.blockedUntil.set(key, this.clock().getTime() + verdict.retryAfterSeconds * 1000);
  }
}

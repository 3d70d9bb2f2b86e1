/**
 * The Workers engine of the RateLimiter: the Rate Limiting binding declared in wrangler.toml, e.g.
 *
 *   [[ratelimits]]
 *   name = "RATE_LIMITER"
 *   namespace_id = "1001"
 *   simple = { limit = 600, period = 60 }
 *
 * The binding's limit and period live in wrangler.toml (period is 10 or 60 seconds); it reports only
 * success or failure, so Retry-After is the period: the longest a refused caller may have to wait.
 */
import type { RateLimiter } from "./context.js";

/** The part of the binding we use (structurally `RateLimit` from @cloudflare/workers-types). */
export interface RateLimitBinding {
  limit(options: { key: string }): Promise<{ success: boolean }>;
}

export function workersRateLimiter(binding: RateLimitBinding, periodSeconds = 60): RateLimiter {
  return {
    async hit(key) {
      const { success } = await binding.limit({ key });
      return success ? { ok: true } : { ok: false, retryAfterSeconds: periodSeconds };
    },
  };
}

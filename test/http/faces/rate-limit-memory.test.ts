/** The in-process sliding-window limiter, on an injected clock. */
import { describe, expect, it } from "vitest";
import { parseRateLimit } from "../../../src/http/rate-limit.js";
import { MemoryRateLimiter } from "../../../src/http/rate-limit-memory.js";
import { workersRateLimiter } from "../../../src/http/rate-limit-workers.js";

function clock(start = 0) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

async function hits(limiter: MemoryRateLimiter, key: string, n: number) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await limiter.hit(key));
  return out;
}

describe("MemoryRateLimiter", () => {
  it("allows the limit within a window and refuses the next with a Retry-After", async () => {
    const c = clock(0);
    const limiter = new MemoryRateLimiter({ limit: 5, now: c.now });
    const results = await hits(limiter, "token:1", 6);
    expect(results.slice(0, 5).every((r) => r.ok)).toBe(true);
    // Refused at t=0 with 5 in the current window: the next window starts in 60 s, and there the 5 must
    // decay to 4 → 12 s more.
    expect(results[5]).toEqual({ ok: false, retryAfterSeconds: 72 });
  });

  it("keeps keys apart", async () => {
    const limiter = new MemoryRateLimiter({ limit: 2, now: clock().now });
    await hits(limiter, "token:1", 2);
    expect((await limiter.hit("token:1")).ok).toBe(false);
    expect((await limiter.hit("token:2")).ok).toBe(true);
    expect((await limiter.hit("ip:127.0.0.1")).ok).toBe(true);
  });

  it("does not let twice the limit through around a window boundary", async () => {
    const c = clock(0);
    const limiter = new MemoryRateLimiter({ limit: 10, now: c.now });
    c.advance(59_000);
    expect((await hits(limiter, "k", 10)).every((r) => r.ok)).toBe(true);
    c.advance(2_000); // t = 61 s: a fixed window would allow 10 more right away
    const after = await hits(limiter, "k", 10);
    expect(after.filter((r) => r.ok).length).toBe(0);
    c.advance(30_000); // half the previous window still overlaps: 5 + 0 → 5 more fit
    expect((await hits(limiter, "k", 10)).filter((r) => r.ok).length).toBe(5);
  });

  it("a Retry-After is honest: waiting that long lets the next request through", async () => {
    const c = clock(1_700_000_000_000);
    const limiter = new MemoryRateLimiter({ limit: 3, now: c.now });
    let refused = 0;
    for (let round = 0; round < 20; round++) {
      c.advance(7_777);
      const r = await limiter.hit("k");
      if (!r.ok) {
        refused++;
        expect(r.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        c.advance(r.retryAfterSeconds * 1000);
        expect((await limiter.hit("k")).ok).toBe(true);
      }
    }
    expect(refused).toBeGreaterThan(0);
  });

  it("forgets idle keys once it holds too many", async () => {
    const c = clock(0);
    const limiter = new MemoryRateLimiter({ limit: 1, now: c.now, maxKeys: 3 });
    for (const k of ["a", "b", "c"]) await limiter.hit(k);
    c.advance(180_000);
    await limiter.hit("d");
    expect((await limiter.hit("a")).ok).toBe(true);
  });

  it("refuses a limit that is not a positive integer", () => {
    expect(() => new MemoryRateLimiter({ limit: 0 })).toThrow("positive integer");
  });
});

describe("REQLIX_RATE_LIMIT", () => {
  it("defaults to 600 per minute and refuses nonsense with a message that says what is expected", () => {
    expect(parseRateLimit(undefined)).toBe(600);
    expect(parseRateLimit("")).toBe(600);
    expect(parseRateLimit("120")).toBe(120);
    expect(() => parseRateLimit("lots")).toThrow(
      'REQLIX_RATE_LIMIT must be a positive integer (requests per minute), got "lots"',
    );
    expect(() => parseRateLimit("-1")).toThrow("positive integer");
  });
});

describe("workersRateLimiter", () => {
  it("adapts the binding's success flag, with the period as Retry-After", async () => {
    const seen: string[] = [];
    let allow = true;
    const binding = {
      async limit({ key }: { key: string }) {
        seen.push(key);
        return { success: allow };
      },
    };
    const limiter = workersRateLimiter(binding, 60);
    expect(await limiter.hit("token:7")).toEqual({ ok: true });
    allow = false;
    expect(await limiter.hit("token:7")).toEqual({ ok: false, retryAfterSeconds: 60 });
    expect(seen).toEqual(["token:7", "token:7"]);
  });
});

/** The order helpers a rescan keeps a cold scan's order with (order.ts). */
import { describe, expect, it } from "vitest";
import { comparePaths, inGitOrder, keepsOrder } from "../../../src/local/trace/order.js";

const map = (...paths: string[]) => new Map(paths.map((p) => [p, p.length]));

describe("trace order", () => {
  it("compares paths by their UTF-8 bytes, as git lists them", () => {
    expect(comparePaths("a/b", "a.b")).toBeGreaterThan(0); // '/' (0x2f) after '.' (0x2e)
    expect(comparePaths("\u{1F600}", "\uFFFD")).toBeGreaterThan(0); // F0.. after EF..: not UTF-16 order
    expect(comparePaths("x", "x")).toBe(0);
  });

  it("puts tracked files first, then untracked ones, each by path; returns the same map when ordered", () => {
    const sorted = map("a", "c", "b-new");
    expect(inGitOrder(sorted, new Set(["b-new"]))).toBe(sorted);
    const moved = inGitOrder(map("c", "b-new", "a"), new Set(["b-new"]));
    expect([...moved.keys()]).toEqual(["a", "c", "b-new"]);
  });

  it("keepsOrder is true only when the paths both hold come in the same order", () => {
    expect(keepsOrder(map("a", "b", "c"), map("a", "x", "c"))).toBe(true); // b gone, x new
    expect(keepsOrder(map("a", "b", "c"), map("a", "c", "b"))).toBe(false); // b became untracked
    expect(keepsOrder(map("b", "a"), map("a", "b"))).toBe(false);
    expect(keepsOrder(map(), map("a"))).toBe(true);
    expect(keepsOrder(map("a", "b"), map())).toBe(true);
  });
});

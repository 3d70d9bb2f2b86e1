/**
 * The stand-ins wrangler.toml `[alias]` puts into the Worker bundle must answer exactly like what they
 * replace, for everything the bundle asks of them.
 */
import { isPgEnum as drizzleIsPgEnum, pgEnum } from "drizzle-orm/pg-core";
import { Base64 as JsBase64 } from "js-base64";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema.js";
import { Base64 } from "../../src/worker-stubs/base64.js";
import { isPgEnum } from "../../src/worker-stubs/pg-enum.js";

function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

describe("the js-base64 stand-in (libSQL's HTTP client: blob arguments and JSON blob results)", () => {
  it("encodes every length, all byte values and large blobs as js-base64 does", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const cases = [
      new Uint8Array(0),
      all,
      ...[1, 2, 3, 4, 5, 31, 32, 33].map((n) => bytes(n, n)),
      bytes(200_000, 7),
    ];
    for (const value of cases) {
      const encoded = Base64.fromUint8Array(value);
      expect(encoded).toBe(JsBase64.fromUint8Array(value));
      expect(Base64.toUint8Array(encoded)).toEqual(value);
    }
  });

  it("decodes what js-base64 decodes: URL-safe, unpadded, with line breaks", () => {
    for (const value of [bytes(1, 1), bytes(2, 2), bytes(100, 3), Uint8Array.from([251, 255, 254, 62, 63])]) {
      const padded = JsBase64.fromUint8Array(value);
      const variants = [
        padded,
        padded.replace(/=+$/, ""),
        JsBase64.fromUint8Array(value, true),
        padded.replace(/(.{8})/g, "$1\n"),
      ];
      for (const text of variants) {
        expect(Base64.toUint8Array(text)).toEqual(JsBase64.toUint8Array(text));
        expect(Base64.toUint8Array(text)).toEqual(value);
      }
    }
  });
});

describe("the drizzle Postgres-enum stand-in", () => {
  it("answers no for every table and column of the schema, as drizzle's check does", () => {
    const values: unknown[] = [];
    for (const table of Object.values(schema)) {
      values.push(table);
      if (table && typeof table === "object") values.push(...Object.values(table));
    }
    expect(values.length).toBeGreaterThan(50);
    for (const value of values) {
      expect(isPgEnum(value)).toBe(false);
      expect(drizzleIsPgEnum(value)).toBe(false);
    }
    // What the stub gives up: a real Postgres enum, which reqlix's SQLite schema never has.
    expect(drizzleIsPgEnum(pgEnum("mood", ["sad", "ok"]))).toBe(true);
  });
});

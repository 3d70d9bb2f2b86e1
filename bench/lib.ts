/**
 * What the benchmark scripts share: command-line numbers, a seeded PRNG, a Zipf word sampler for
 * realistic text, the order statistics their tables report, the machine facts their results end with, and a
 * full garbage collection for those that time from a settled heap.
 */
import { cpus, loadavg } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: (() => void) | undefined;
/** A full garbage collection, now (V8's gc(), exposed on first use: no --expose-gc flag needed). */
export function collectGarbage(): void {
  if (gc === undefined) {
    setFlagsFromString("--expose-gc");
    gc = runInNewContext("gc") as () => void;
  }
  gc();
}

/** Node, the 1-minute load average, cores and time: the last fields of a result's summary. */
export function machineFacts(): { node: string; load_average_1m: number; cpus: number; date: string } {
  return {
    node: process.version,
    load_average_1m: +(loadavg()[0] ?? 0).toFixed(2),
    cpus: cpus().length,
    date: new Date().toISOString(),
  };
}

/** `--name 123` from the command line, or `fallback`. */
export function numberArg(name: string, fallback: number, argv: readonly string[] = process.argv): number {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(argv[i + 1]);
}

/** Small deterministic PRNG (mulberry32): the same seed gives the same data in every run. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Samples words of `vocab` with a Zipf distribution (s = 1: rank r has weight 1/r), as real text has a few
 * words in nearly every document and a long tail in a handful.
 */
export function zipfWords(
  vocab: readonly string[],
  random: () => number,
): { word(): string; phrase(n: number): string } {
  const cumulative: number[] = [];
  let sum = 0;
  for (let i = 0; i < vocab.length; i++) {
    sum += 1 / (i + 1);
    cumulative.push(sum);
  }
  const word = (): string => {
    const x = random() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return vocab[lo] as string;
  };
  return { word, phrase: (n) => Array.from({ length: n }, word).join(" ") };
}

/** The p-th percentile (0–100) of values sorted ascending; NaN when there are none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** The median (upper middle for an even count) of unsorted values. */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

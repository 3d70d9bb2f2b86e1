/**
 * A 64-bit hash of a text, for the scanner's cache keys and file names: an incremental `reqlix-mcp trace`
 * run otherwise loaded node:crypto (~8 ms of a ~200 ms run) only to name and key its cache. Not
 * cryptographic: it tells apart texts that differ by accident (a changed rule, environment or listing), and
 * where two could collide (a cache file's name) the stored root is checked too.
 */
function mix(h: number): number {
  let x = h;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

export function hash64(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (
    mix(a).toString(16).padStart(8, "0") +
    mix(b ^ a)
      .toString(16)
      .padStart(8, "0")
  );
}

/** A name no other run of this or another process picks (a temp file, a cache generation). */
export function uniqueName(): string {
  return `${process.pid.toString(36)}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
}

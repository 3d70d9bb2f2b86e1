/**
 * Stands in for `js-base64` in the Worker bundle (wrangler.toml `[alias]`): libSQL's HTTP client uses only
 * `Base64.fromUint8Array` (blob arguments) and `Base64.toUint8Array` (blob results of the JSON protocol),
 * which workerd's `btoa`/`atob` do in a few lines (js-base64 adds ~1 KiB gzip of code the Worker never
 * needs). Same results as js-base64: standard alphabet with padding out; standard or URL-safe, padded or
 * not, anything else ignored, in (test/workers/base64-stub.test.ts compares the two).
 */
function fromUint8Array(bytes: Uint8Array): string {
  let binary = "";
  // Chunks keep the argument list of String.fromCharCode far below engines' limits.
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function toUint8Array(text: string): Uint8Array {
  const clean = text.replace(/[-_]/g, (c) => (c === "-" ? "+" : "/")).replace(/[^A-Za-z0-9+/]/g, "");
  const binary = atob(clean.length % 4 === 1 ? clean.slice(0, -1) : clean);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export const Base64 = { fromUint8Array, toUint8Array };

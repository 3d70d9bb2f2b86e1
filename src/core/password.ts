/**
 * Password hashing (issue 12 item 4): argon2id from @noble/hashes, pure JavaScript, so Node and the Worker
 * run the same code (workerd refuses to compile WebAssembly from bytes at run time, which rules out the
 * WASM builds such as hash-wasm's). Parameters m=19 MiB, t=2, p=1 are OWASP's first recommendation:
 * memory-hard, far below a Worker isolate's 128 MB, and measured cheaper in CPU than noble's scrypt at
 * OWASP's equivalent setting (N=2^15, r=8, p=3). The stored form (PHC) names its parameters, so they can
 * be raised later without breaking existing hashes.
 */
import { argon2idAsync } from "@noble/hashes/argon2.js";

export interface Argon2Params {
  /** Memory in KiB. */
  m: number;
  t: number;
  p: number;
}

export const PASSWORD_PARAMS: Argon2Params = { m: 19_456, t: 2, p: 1 };
export const MIN_PASSWORD_LENGTH = 10;
/** A bound on what is hashed, so a huge post costs no more than a normal one. */
export const MAX_PASSWORD_LENGTH = 1024;
const KEY_LENGTH = 32;
const PHC = /^\$argon2id\$v=19\$m=(\d{1,7}),t=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

function b64(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/=+$/, "");
}

function unb64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));
}

async function derive(password: string, salt: Uint8Array, params: Argon2Params): Promise<Uint8Array> {
  return argon2idAsync(password.normalize("NFC"), salt, {
    m: params.m,
    t: params.t,
    p: params.p,
    dkLen: KEY_LENGTH,
    // Hand the event loop back often: other requests go on while a sign-in hashes.
    asyncTick: 10,
  });
}

/** What is wrong with a new password, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH)
    return `A password needs at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH)
    return `A password has at most ${MAX_PASSWORD_LENGTH} characters.`;
  return undefined;
}

export async function hashPassword(password: string, params = PASSWORD_PARAMS): Promise<string> {
  const salt = new Uint8Array(16);
  crypto.getRandomValues(salt);
  const key = await derive(password, salt, params);
  return `$argon2id$v=19$m=${params.m},t=${params.t},p=${params.p}$${b64(salt)}$${b64(key)}`;
}

/**
 * A hash of no one's password with the default parameters: checked when the user is unknown or has no
 * password, so that case costs the same time as a wrong password.
 */
const DECOY =
  "$argon2id$v=19$m=19456,t=2,p=1$alwp2UgkPcYFFzhHaRk/RA$3uMHse3RGpOXGEvCKY9Qa4YHJs80/qSIxLTGnpoTOAA";

/**
 * True when `password` matches `stored`. `stored` undefined or malformed: the same work is done against a
 * decoy and the answer is false (no timing difference between an unknown user and a wrong password).
 */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const m = stored ? PHC.exec(stored) : null;
  if (!m) {
    await verifyPassword(password, DECOY);
    return false;
  }
  const params = { m: Number(m[1]), t: Number(m[2]), p: Number(m[3]) };
  const expected = unb64(m[5] as string);
  const actual = await derive(password.slice(0, MAX_PASSWORD_LENGTH), unb64(m[4] as string), params);
  if (actual.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < actual.length; i++) diff |= (actual[i] as number) ^ (expected[i] as number);
  return diff === 0;
}

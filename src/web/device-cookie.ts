/**
 * Device cookies (OWASP, "slow down online guessing attacks with device cookies"): a password sign-in sets
 * `rqx_device`, a random secret (its SHA-256 in trusted_devices) valid 180 days, sent only to /signin. A
 * later password sign-in from that browser, naming the same account, is counted on the device's own
 * failure key instead of the account's: guesses at a username from elsewhere block the account for them,
 * never for its owner's browser. The cookie grants nothing by itself: the password is still checked, and
 * the per-address limit still applies.
 */
import type { Context } from "hono";
import { hashToken } from "../core/tokens.js";
import type { Database } from "../db/database.js";
import { findTrustedDevice, forgetDevice, rememberDevice } from "../db/trusted-devices.repo.js";
import { getCookie, setCookie } from "./cookies.js";
import { cookieSecure, randomId } from "./session.js";

export const DEVICE_COOKIE = "rqx_device";
const DEVICE_TTL_SECONDS = 180 * 24 * 60 * 60;

export interface KnownDevice {
  /** The failure key of this browser (its hash, never the secret). */
  key: string;
  userId: number;
  /** Whether the sign-in names this device's account, by username (exact) or email (any case). */
  names(login: string): boolean;
}

/** The trusted device this request's cookie names, or undefined (none, unknown or expired). */
export async function knownDevice(
  c: Context,
  database: Database,
  now: Date,
): Promise<KnownDevice | undefined> {
  const secret = getCookie(c, DEVICE_COOKIE);
  if (!secret) return undefined;
  const hash = await hashToken(secret);
  const found = await database.read((ex) => findTrustedDevice(ex, hash, now.toISOString()));
  if (!found) return undefined;
  return {
    key: `web-signin:device:${hash}`,
    userId: found.userId,
    names: (login) =>
      login === found.username || (found.email !== null && login.toLowerCase() === found.email),
  };
}

/**
 * After a good password: remembers this browser for `userId` unless its cookie already names them. A
 * cookie of another user on the same browser is replaced (one device cookie per browser).
 */
export async function trustThisDevice(
  c: Context,
  database: Database,
  userId: number,
  device: KnownDevice | undefined,
  now: Date,
): Promise<void> {
  if (device?.userId === userId) return;
  const secret = randomId();
  const secretHash = await hashToken(secret);
  const previous = getCookie(c, DEVICE_COOKIE);
  const previousHash = previous ? await hashToken(previous) : undefined;
  const expiresAt = new Date(now.getTime() + DEVICE_TTL_SECONDS * 1000).toISOString();
  await database.write(async (tx) => {
    if (previousHash) await forgetDevice(tx, previousHash);
    await rememberDevice(tx, { userId, secretHash, expiresAt }, now.toISOString());
  });
  setCookie(c, DEVICE_COOKIE, secret, {
    path: "/signin",
    httpOnly: true,
    sameSite: "Lax",
    secure: cookieSecure(c),
    maxAge: DEVICE_TTL_SECONDS,
  });
}

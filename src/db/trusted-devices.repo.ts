/**
 * Trusted devices (OWASP's device cookies): browsers a user signed in from with their password. The web
 * sign-in (web/device-cookie.ts) counts a failure of such a browser on its own limit rather than on the
 * account's, so guesses at a username from elsewhere cannot lock its owner out. Rows hold the SHA-256 of
 * the cookie's secret only; a user keeps at most MAX_DEVICES, the newest.
 */
import { and, desc, eq, gt, lte, notInArray, or } from "drizzle-orm";
import type { Executor, Tx } from "./database.js";
import { trustedDevices, userCredentials, users } from "./schema.js";

/** Browsers remembered per user; a new one past this forgets the oldest. */
export const MAX_DEVICES = 10;

export interface TrustedDevice {
  userId: number;
  username: string;
  /** Lower-cased, when the user has one: a sign-in may name the account by it. */
  email: string | null;
}

/** The user whose unexpired device this secret hash is, or undefined. */
export async function findTrustedDevice(
  ex: Executor,
  secretHash: string,
  now: string,
): Promise<TrustedDevice | undefined> {
  const rows = await ex
    .select({ userId: users.id, username: users.username, email: userCredentials.email })
    .from(trustedDevices)
    .innerJoin(users, eq(users.id, trustedDevices.userId))
    .leftJoin(userCredentials, eq(userCredentials.userId, users.id))
    .where(and(eq(trustedDevices.secretHash, secretHash), gt(trustedDevices.expiresAt, now)))
    .limit(1);
  return rows[0];
}

/** Remembers a device for `userId` and forgets that user's expired ones and those past MAX_DEVICES. */
export async function rememberDevice(
  tx: Tx,
  device: { userId: number; secretHash: string; expiresAt: string },
  now: string,
): Promise<void> {
  await tx.insert(trustedDevices).values(device);
  const kept = tx
    .select({ id: trustedDevices.id })
    .from(trustedDevices)
    .where(eq(trustedDevices.userId, device.userId))
    .orderBy(desc(trustedDevices.id))
    .limit(MAX_DEVICES);
  await tx
    .delete(trustedDevices)
    .where(
      and(
        eq(trustedDevices.userId, device.userId),
        or(lte(trustedDevices.expiresAt, now), notInArray(trustedDevices.id, kept)),
      ),
    );
}

/** Forgets one device (its cookie was replaced by another user's on the same browser). */
export async function forgetDevice(tx: Tx, secretHash: string): Promise<void> {
  await tx.delete(trustedDevices).where(eq(trustedDevices.secretHash, secretHash));
}

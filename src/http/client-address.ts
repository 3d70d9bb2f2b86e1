/**
 * The caller's address, the key of the per-address limit on failed auth. On Node it is the socket's peer:
 * a header a client sends must not choose its own bucket. Behind a reverse proxy every client shares the
 * proxy's address, so REQLIX_TRUSTED_PROXIES names the proxies whose `X-Forwarded-For` is believed; even
 * then only the part they appended: the header is read from the right, skipping trusted hops, and the
 * first address no trusted proxy holds is the client (entries a client prepends never count).
 * On Workers there is no socket: `CF-Connecting-IP` is set by Cloudflare's edge and cannot be overridden.
 */
import type { Context } from "hono";
import { formatIp, type IpRange, ipInRanges, parseIp } from "../core/ip-ranges.js";

function fromForwardedFor(header: string | undefined, trusted: readonly IpRange[]): string | undefined {
  if (header === undefined) return undefined;
  const hops = header.split(",").map((h) => h.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const ip = parseIp(hops[i] as string);
    // A malformed hop was not written by a proxy we trust: stop rather than read past it.
    if (!ip) return undefined;
    if (!ipInRanges(ip, trusted)) return formatIp(ip);
  }
  return undefined;
}

export function clientAddress(c: Context, trustedProxies: readonly IpRange[] = []): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  if (!incoming) return c.req.header("cf-connecting-ip") ?? "unknown";
  const peerText = incoming.socket?.remoteAddress;
  const peer = peerText === undefined ? undefined : parseIp(peerText);
  if (!peer) return peerText ?? "unknown";
  if (trustedProxies.length > 0 && ipInRanges(peer, trustedProxies)) {
    const client = fromForwardedFor(c.req.header("x-forwarded-for"), trustedProxies);
    if (client) return client;
  }
  return formatIp(peer);
}

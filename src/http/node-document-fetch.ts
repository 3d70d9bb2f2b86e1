/**
 * The Node fetch of client ID metadata documents (Node only: imported from src/node.ts, never the Worker).
 * A public name may resolve to a private address (`evil.example` → 10.0.0.5), and a checked name may answer
 * differently a moment later (DNS rebinding). So the request goes through node:https with a `lookup` that
 * resolves every address of the name, refuses the connection if any one is private, loopback, link-local,
 * multicast or unspecified (IPv4-mapped IPv6 judged as IPv4), and hands the socket only the addresses it
 * checked: nothing is resolved again between the check and the connect. Redirects are never followed
 * (node:https does not), no credentials are sent, and the body is streamed so the caller's 16 KiB cap holds.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { Readable } from "node:stream";
import {
  DocumentAddressError,
  type DocumentOptions,
  resolvedAddressProblem,
} from "./oauth-client-document.js";

/** The resolver: node:dns `lookup` with `all: true`, injectable so a test can make a name point anywhere. */
export type Resolver = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export interface NodeDocumentOptions {
  /** Accept loopback addresses (tests serve the document locally); never other private ones. */
  allowLoopback?: boolean;
  /** Default node:dns `lookup`. */
  lookup?: Resolver;
  /** Extra trusted certificate authorities (tests' self-signed loopback server). */
  ca?: string;
  timeoutMs?: number;
}

/** A `lookup` for net.connect that lets the socket reach only addresses it checked. */
export function checkedLookup(resolve: Resolver, allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 4);
      const problems = addresses.map((a) => resolvedAddressProblem(hostname, a.address, { allowLoopback }));
      const problem = addresses.length === 0 ? `${hostname} resolved to no address.` : problems.find(Boolean);
      if (problem) return callback(new DocumentAddressError(problem), "", 4);
      if (options.all) return (callback as (e: null, all: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

/** A `fetch` for fetchClientDocument that connects only to checked addresses. */
export function nodeDocumentFetch(options: NodeDocumentOptions = {}): typeof fetch {
  const lookup = checkedLookup(options.lookup ?? (dnsLookup as Resolver), options.allowLoopback ?? false);
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const req = send(
        url,
        {
          method: init?.method ?? "GET",
          headers: Object.fromEntries(new Headers(init?.headers).entries()),
          lookup,
          // One connection per fetch: a pooled socket would skip the lookup (and so the check).
          agent: false,
          ...(options.ca ? { ca: options.ca } : {}),
          ...(init?.signal ? { signal: init.signal } : {}),
        },
        (res: IncomingMessage) => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
          }
          const status = res.statusCode ?? 502;
          const empty = status === 204 || status === 304;
          if (empty) res.resume();
          const body = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          try {
            resolve(new Response(body, { status, headers }));
          } catch (error) {
            // A status a Response cannot carry (outside 200-599): refuse rather than guess.
            res.destroy();
            reject(error);
          }
        },
      );
      req.on("error", reject);
      req.end();
    });
  }) as typeof fetch;
}

/** The document options Node's app runs with: the checked fetch, and the loopback allowance it honours. */
export function nodeDocumentOptions(options: NodeDocumentOptions = {}): DocumentOptions {
  return {
    ...(options.allowLoopback ? { allowLoopback: true } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    fetch: nodeDocumentFetch(options),
  };
}

/**
 * Stress run of the real Worker (src/worker.ts under `wrangler dev`, local libSQL endpoint): not part of
 * `npm test` (it takes about a minute per round), for hunting intermittent failures.
 *
 *   npx tsx test/workers/worker-stress.ts            # 2 rounds
 *   STRESS_ROUNDS=5 npx tsx test/workers/worker-stress.ts
 *
 * Each round: refused and valid POSTs through the conformance suite's auth proxy (sequential and
 * concurrent), bursts of concurrent reads and writes, pauses just under, at and over the 5 s keep-alive of
 * workerd's connection pool, a write that waits behind an abandoned transaction until the endpoint expires
 * its stream (15 s) while reads go on, and requests after that expiry. Every answer must have its expected
 * status; on any other the Worker's and the endpoint's logs are printed and the exit code is 1.
 */
import { createClient } from "@libsql/client/web";
import { type AuthProxy, startAuthProxy } from "../helpers/proxy.js";
import { postAs, type StartedWorker, startWorker } from "../helpers/workers.js";

const ROUNDS = Math.max(1, Math.min(20, Number(process.env.STRESS_ROUNDS ?? 2)));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Outcome {
  what: string;
  expected: number[];
  status: number;
  body: string;
  at: string;
}

const outcomes: Outcome[] = [];
let sequence = 0;

async function record(
  what: string,
  expected: number[],
  run: () => Promise<{ status: number; body: string }>,
) {
  const at = new Date().toISOString();
  let result: { status: number; body: string };
  try {
    result = await run();
  } catch (error) {
    result = { status: 0, body: `request failed: ${(error as Error).message}` };
  }
  outcomes.push({ what, expected, ...result, at });
}

async function viaFetch(url: string, init?: RequestInit): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(60_000) });
  return { status: res.status, body: await res.text() };
}

function initialize(): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: ++sequence,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "stress", version: "1" } },
  });
}

function mixed(worker: StartedWorker, kind: number): Promise<void> {
  const auth = { "content-type": "application/json", authorization: `Bearer ${worker.token}` };
  const id = ++sequence;
  switch (kind % 4) {
    case 0:
      return record("GET /healthz", [200], () => viaFetch(`${worker.url}/healthz`));
    case 1:
      return record("ping", [200], () =>
        viaFetch(`${worker.url}/api/v1/mcp`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }),
        }),
      );
    case 2:
      return record("admin: add member (write)", [201], () =>
        viaFetch(`${worker.url}/api/v1/admin/members`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ username: `stress-${id}`, role: "editor" }),
        }),
      );
    default:
      return record("create_epic (write + audit)", [200], () =>
        viaFetch(`${worker.url}/api/v1/mcp`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id,
            method: "tools/call",
            params: { name: "create_epic", arguments: { title: `Stress ${id}` } },
          }),
        }),
      );
  }
}

async function burst(worker: StartedWorker, size: number): Promise<void> {
  await Promise.all(Array.from({ length: size }, (_, k) => mixed(worker, k)));
}

async function round(worker: StartedWorker, proxy: AuthProxy, index: number): Promise<void> {
  const local = new URL(proxy.url).host;
  // 1. What the conformance suite's DNS-rebinding scenario does, sequentially and several at once.
  for (let i = 0; i < 20; i++) {
    await record("refused POST (foreign Host)", [403], () =>
      postAs(proxy.url, "evil.example.com", initialize()),
    );
    await record("valid POST after a refused one", [200], () => postAs(proxy.url, local, initialize()));
  }
  await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      i % 2 === 0
        ? record("refused POST (foreign Host), concurrent", [403], () =>
            postAs(proxy.url, "evil.example.com", initialize()),
          )
        : record("valid POST, concurrent", [200], () => postAs(proxy.url, local, initialize())),
    ),
  );
  // 2. Bursts of concurrent reads and writes.
  for (let i = 0; i < 4; i++) await burst(worker, 8);
  // 3. Pauses around workerd's 5 s keep-alive, then a single request and a burst.
  for (const pause of [4_900, 5_000, 5_100]) {
    await sleep(pause);
    await mixed(worker, index + pause);
    await burst(worker, 6);
  }
  // 4. A transaction abandoned by another client holds the write lock until the endpoint expires its
  //    stream (15 s): a write through the Worker waits (BUSY, retries) and lands; reads go on meanwhile.
  const other = createClient({ url: worker.libsqlUrl });
  const abandoned = await other.transaction("write");
  // BEGIN IMMEDIATE goes out with the first statement and takes the write lock.
  await abandoned.execute("SELECT 1");
  const blockedWrite = mixed(worker, 2);
  for (let i = 0; i < 6; i++) {
    await sleep(1_000);
    await mixed(worker, 0);
    await mixed(worker, 1);
  }
  await blockedWrite;
  other.close();
  // 5. Requests after the expiry.
  await burst(worker, 8);
}

async function main(): Promise<void> {
  const worker = await startWorker();
  const proxy = await startAuthProxy({ target: worker.url, token: worker.token });
  let failed: Outcome[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const started = Date.now();
      await round(worker, proxy, i);
      failed = outcomes.filter((o) => !o.expected.includes(o.status));
      console.log(
        `round ${i + 1}/${ROUNDS}: ${outcomes.length} requests so far, ${failed.length} unexpected, ${Math.round((Date.now() - started) / 1000)} s`,
      );
    }
  } finally {
    if (failed.length > 0) {
      for (const o of failed.slice(0, 20)) {
        console.log(
          `${o.at} ${o.what}: got ${o.status}, expected ${o.expected.join("/")}: ${o.body.slice(0, 200)}`,
        );
      }
      console.log(`--- Worker output ---\n${worker.output().slice(-8_000)}`);
      console.log(`--- libSQL endpoint log ---\n${worker.endpointLog?.().slice(-8_000) ?? ""}`);
    }
    await proxy.close();
    await worker.close();
  }
  process.exitCode = failed.length > 0 ? 1 : 0;
}

await main();

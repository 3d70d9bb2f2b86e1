/**
 * Test-only Worker entry: the production Worker (src/worker.ts: same bindings, same deps) serving the
 * conformance fixture registry beside the hosted registry, so the conformance suite can call its fixture
 * tools in workerd. Started by test/helpers/workers.ts (`startWorker({ entry })`); never deployed.
 */
import type { Hono } from "hono";
import { createApp } from "../../src/app.js";
import type { HostedContext } from "../../src/hosted/context.js";
import { hostedRegistry } from "../../src/hosted/registry.js";
import type { AppEnv } from "../../src/http/context.js";
import { type Env, serve, workerDeps } from "../../src/worker.js";
import { conformanceRegistry } from "../fixtures/conformance-registry.js";

let cached: Hono<AppEnv> | undefined;

export default {
  async fetch(request, env, ctx) {
    cached ??= createApp({
      ...workerDeps(env),
      registries: [hostedRegistry, conformanceRegistry<HostedContext>()],
    });
    return serve(cached, request, env, ctx);
  },
} satisfies ExportedHandler<Env>;

/**
 * An upstream OpenID provider that cannot be reached: the sign-in answers a page saying so (502), not a
 * server error, and the failure is not kept, so the next sign-in asks the provider again.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostedServer } from "../helpers/hosted.js";
import { startWebServer, WebClient } from "./web-client.js";

let server: HostedServer;
let issuer: string;

beforeAll(async () => {
  // A port that was free a moment ago and that nothing listens on now: connection refused.
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
  issuer = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise<void>((done) => probe.close(() => done()));
  server = await startWebServer({
    deps: {
      oidc: {
        issuer,
        clientId: "reqlix",
        clientSecret: "reqlix-client-secret",
        label: "Test IdP",
        allowHttp: true,
      },
    },
  });
});

afterAll(async () => {
  await server?.close();
});

describe("an upstream OpenID provider that cannot be reached", () => {
  it("answers the sign-in start with a page naming the provider (502), every time, and no session", async () => {
    const client = new WebClient(server.url);
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await client.get("/signin/oidc?next=/");
      expect(res.status).toBe(502);
      expect(res.text).toContain("Test IdP could not be reached or failed");
      expect(res.text).not.toContain(issuer);
    }
    expect(client.cookies.has("rqx_oidc")).toBe(false);
    expect(client.cookies.has("rqx_session")).toBe(false);
  });
});

/**
 * The pages over the two paged lists, over real HTTP and real libSQL: My tokens shows one page of
 * list_my_tokens and a "Next page" link carrying its cursor; home shows one page of list_suspect_links
 * (relationships then citations) and a "More suspect links" link carrying its cursor. Following the links
 * shows every token and every suspect link exactly once; a forged cursor is refused with the tool's words.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostedServer } from "../helpers/hosted.js";
import { seedHierarchy, toolHttp } from "../helpers/rpc-http.js";
import { pushTraces, snapshotBody } from "../helpers/traces.js";
import { startWebServer, WebClient } from "./web-client.js";

let server: HostedServer;

beforeAll(async () => {
  server = await startWebServer();
});
afterAll(async () => server?.close());

const unescapeHref = (href: string) => href.replace(/&amp;/g, "&");

describe("paged lists on the web", () => {
  it("My tokens shows 20 tokens and a Next page link; the next page shows the rest", async () => {
    const token = await server.createToken("pia", "viewer");
    for (let i = 0; i < 23; i++) {
      await toolHttp(server.url, token, "create_my_token", { name: `tok-${String(i).padStart(2, "0")}` });
    }
    const web = new WebClient(server.url);
    await web.signIn(token);
    const names = (text: string) => [...text.matchAll(/<tr><td>(tok-\d\d|test viewer)/g)].map((m) => m[1]);
    const first = await web.get("/tokens");
    expect(first.status).toBe(200);
    const onFirst = names(first.text);
    expect(onFirst).toHaveLength(20);
    expect(onFirst[0]).toBe("tok-22");
    expect(first.text).toContain("Showing the newest 20 tokens");
    const next = /<a href="(\/tokens\?cursor=[^"]+)" rel="next">Next page<\/a>/.exec(first.text)?.[1];
    expect(next).toBeDefined();
    const second = await web.get(unescapeHref(next as string));
    expect(second.status).toBe(200);
    const onSecond = names(second.text);
    expect([...onFirst, ...onSecond]).toEqual([
      ...Array.from({ length: 23 }, (_, i) => `tok-${String(22 - i).padStart(2, "0")}`),
      "test viewer",
    ]);
    expect(second.text).not.toContain('rel="next"');
    // The session's own token is marked on whichever page holds it.
    expect(second.text).toContain('test viewer <span class="muted">(this session)</span>');

    const forged = await web.get("/tokens?cursor=garbage");
    expect(forged.status).toBe(400);
    expect(forged.text).toContain("cursor does not belong to this list");
  });

  it("home shows 20 suspect links and a More link; following it shows the rest, each once", async () => {
    const seeded = await seedHierarchy(server.url, server.ownerToken, 1, "Suspects");
    const [r1, r2] = seeded.requirements as [string, string];
    // The seed links r2 depends_on r1: a change to r1 makes it suspect.
    const citations = Array.from({ length: 24 }, (_, i) => ({
      id: r1,
      revision: 1,
      file: "src/pay.ts",
      line: 100 + i,
    }));
    const pushed = await pushTraces(server, snapshotBody({ repository: "acme/pages", citations }));
    expect(pushed.status, pushed.text).toBeLessThan(300);
    await toolHttp(server.url, server.ownerToken, "update_requirement", {
      requirement_id: r1,
      description: "Changed: every link of it is suspect now.",
    });
    const web = new WebClient(server.url);
    await web.signIn(server.ownerToken);
    const shown = (text: string) => {
      const section = /<section aria-labelledby="suspects">([\s\S]*?)<\/section>/.exec(text)?.[1] ?? "";
      return [...section.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => m[1]?.replace(/<[^>]+>/g, ""));
    };
    const home = await web.get("/");
    expect(home.status).toBe(200);
    const first = shown(home.text);
    expect(first).toHaveLength(20);
    expect(first[0]).toBe(`${r2} depends_on ${r1}`);
    expect(home.text).toContain("Showing 20 suspect links");
    const more = /<a href="(\/\?suspects=[^"]+#suspects)" rel="next">More suspect links<\/a>/.exec(
      home.text,
    )?.[1];
    expect(more).toBeDefined();
    const rest = await web.get(unescapeHref(more as string));
    expect(rest.status).toBe(200);
    const second = shown(rest.text);
    expect(second).toHaveLength(5);
    expect(rest.text).not.toContain("More suspect links");
    // The rest of the home page is still there.
    expect(rest.text).toContain("Recent changes");
    const lines = [...first, ...second].slice(1).map((l) => Number(/:(\d+)$/.exec(l ?? "")?.[1]));
    expect(lines).toEqual(Array.from({ length: 24 }, (_, i) => 100 + i));

    const forged = await web.get("/?suspects=garbage");
    expect(forged.status).toBe(400);
    expect(forged.text).toContain("cursor does not belong to this list");
  });
});

/**
 * What the per-area tools/list snapshot tests share: one viewer's SDK client over the hosted harness, the
 * listed tools or resource templates of one area (in the order the server lists them), and the snapshot text.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll } from "vitest";
import { createHarness, type Harness } from "./harness.js";

/** Registers the suite's setup and teardown; call the returned function inside a test for the client. */
export function viewerClient(): () => Client {
  let h: Harness;
  let client: Client;
  beforeAll(async () => {
    h = await createHarness();
    client = await h.connect(await h.member("snap", "viewer"));
  });
  afterAll(async () => h.close());
  return () => client;
}

export async function listedTools(client: Client, names: Iterable<string>) {
  const wanted = new Set(names);
  return (await client.listTools()).tools.filter((t) => wanted.has(t.name));
}

export async function listedTemplates(client: Client, uriTemplates: Iterable<string>) {
  const wanted = new Set(uriTemplates);
  return (await client.listResourceTemplates()).resourceTemplates.filter((t) => wanted.has(t.uriTemplate));
}

/** The text a snapshot file holds: pretty JSON and a final newline. */
export const snapshotText = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * The caller's own token tools (issue 13, "my tokens") as clients list them, snapshot-tested so any change to
 * what a model reads is a reviewed diff; listed for a viewer, who may call all three.
 */
import { expect, test } from "vitest";
import { myTokenTools } from "../../src/hosted/my-tokens.tools.js";
import { listedTools, snapshotText, viewerClient } from "./listed.js";

const client = viewerClient();

test("the my-token tools in tools/list match the snapshot; only list_my_tokens is read-only", async () => {
  const tools = await listedTools(
    client(),
    myTokenTools.map((t) => t.name),
  );
  expect(tools.map((t) => t.name)).toEqual(["list_my_tokens", "create_my_token", "revoke_my_token"]);
  expect(tools.map((t) => t.annotations?.readOnlyHint)).toEqual([true, false, false]);
  await expect(snapshotText(tools)).toMatchFileSnapshot("./__snapshots__/my-tokens-tools.json.snap");
});

/** list_docset_pages: one docset by name or alias, its stored pages by path, limited; scoped to the workspace. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createHarness, fails, type Harness, ok } from "./harness.js";

let h: Harness;
let viewer: Client;
let stranger: Client;

beforeAll(async () => {
  h = await createHarness();
  const admin = await h.connect(await h.member("ada", "admin"));
  viewer = await h.connect(await h.member("vic", "viewer"));
  stranger = await h.connect(await h.member("sam", "admin", "other"));
  await ok(admin, "register_docset", {
    name: "react",
    version: "18.2",
    aliases: ["reactjs"],
    description: "React",
  });
  await ok(admin, "upload_docset_pages", {
    docset: "react",
    pages: [
      { path: "reference/use-effect.md", content: "# useEffect\n\nSynchronize." },
      { path: "learn/hooks.md", content: "# Hooks\n\nState and effects." },
      { path: "learn/state.md", content: "# State\n\nA component's memory." },
    ],
  });
});
afterAll(async () => h.close());

test("a docset by name or alias with its pages by path; limit keeps the first, page_count counts all", async () => {
  const byAlias = await ok<Record<string, unknown>>(viewer, "list_docset_pages", { docset: "reactjs" });
  expect(byAlias).toMatchObject({
    name: "react",
    version: "18.2",
    aliases: ["reactjs"],
    description: "React",
    page_count: 3,
    pages: [
      { path: "learn/hooks.md", title: "Hooks" },
      { path: "learn/state.md", title: "State" },
      { path: "reference/use-effect.md", title: "useEffect" },
    ],
  });
  expect(String(byAlias.local_path)).toMatch(/react-18\.2\/?$/);
  const first = await ok<{ pages: unknown[]; page_count: number }>(viewer, "list_docset_pages", {
    docset: "react",
    limit: 1,
  });
  expect(first.pages).toEqual([{ path: "learn/hooks.md", title: "Hooks" }]);
  expect(first.page_count).toBe(3);
});

test("an unknown docset and another workspace's docset are not found", async () => {
  expect(await fails(viewer, "list_docset_pages", { docset: "vue" })).toMatch(/vue/);
  expect(await fails(stranger, "list_docset_pages", { docset: "react" })).toMatch(/react/);
});

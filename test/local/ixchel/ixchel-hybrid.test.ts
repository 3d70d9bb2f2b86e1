/**
 * Hybrid search (BM25 fused with vectors) through the built companion, against a local embeddings server
 * started by the test. No model is downloaded anywhere.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startCompanion, tempDir, textOf } from "../../helpers/companion.js";
import { type EmbeddingsServer, startEmbeddingsServer } from "./embeddings-server.js";
import { writeEntity, writeSampleGraph } from "./repo-fixture.js";

let server: EmbeddingsServer;
let root: string;
let cleanup: () => Promise<void>;
const SECRET = "sk-test-secret-value-123";

beforeAll(async () => {
  server = await startEmbeddingsServer();
  ({ path: root, cleanup } = await tempDir("ixchel-hybrid-"));
  writeSampleGraph(root);
  writeEntity(root, {
    id: "idea-0000e1",
    title: "Parking for the team car",
    body: "Where to leave the car overnight.",
  });
});
afterAll(async () => {
  await server.close();
  await cleanup();
});
beforeEach(() => {
  server.requests.length = 0;
  server.failWith = undefined;
});

function companionEnv(extra: Record<string, string> = {}) {
  return {
    IXCHEL_EMBEDDINGS_URL: server.url,
    IXCHEL_EMBEDDINGS_MODEL: "test-bow-64",
    IXCHEL_EMBEDDINGS_API_KEY: SECRET,
    ...extra,
  };
}

type Hits = { mode: string; note?: string; hits: { id: string; score: number }[] };

describe("hybrid search", () => {
  it("fuses lexical and vector ranks, says so, and finds what words alone miss", async () => {
    const companion = await startCompanion({
      cwd: root,
      args: ["--toolsets", "ixchel"],
      env: companionEnv(),
    });
    try {
      const lexicalOnly = await startCompanion({ cwd: root, args: ["--toolsets", "ixchel"] });
      try {
        const plain = (
          await lexicalOnly.client.callTool({ name: "ixchel_search", arguments: { query: "automobile" } })
        ).structuredContent as Hits;
        expect(plain).toEqual({ mode: "lexical", hits: [] });
      } finally {
        await lexicalOnly.close();
      }

      const result = await companion.client.callTool({
        name: "ixchel_search",
        arguments: { query: "automobile" },
      });
      const hybrid = result.structuredContent as Hits;
      expect(hybrid.mode).toBe("hybrid");
      expect(hybrid.hits[0]?.id).toBe("idea-0000e1");
      expect(JSON.parse(textOf(result))).toEqual(hybrid);

      // Every entity was embedded once (in one batch), then the query; the key went as a bearer token.
      const documents = server.requests.flatMap((r) => r.input);
      expect(documents).toHaveLength(7);
      expect(server.requests.every((r) => r.model === "test-bow-64")).toBe(true);
      expect(server.requests.every((r) => r.authorization === `Bearer ${SECRET}`)).toBe(true);

      // Lexical evidence still counts: a word match ranks its entity first.
      server.requests.length = 0;
      const words = (
        await companion.client.callTool({ name: "ixchel_search", arguments: { query: "migrations workers" } })
      ).structuredContent as Hits;
      expect(words.mode).toBe("hybrid");
      expect(words.hits[0]?.id).toBe("iss-0000b1");
      // Nothing re-embedded: only the new query went out.
      expect(server.requests.map((r) => r.input.length)).toEqual([1]);
    } finally {
      await companion.close();
    }
  });

  it("keeps embeddings in the cache by content hash: a new process embeds only what changed", async () => {
    const first = await startCompanion({ cwd: root, args: ["--toolsets", "ixchel"], env: companionEnv() });
    try {
      await first.client.callTool({ name: "ixchel_search", arguments: { query: "database" } });
    } finally {
      await first.close();
    }
    writeEntity(root, { id: "rpt-0000f1", title: "Fleet report", body: "The vehicle count grew." });
    server.requests.length = 0;
    const second = await startCompanion({ cwd: root, args: ["--toolsets", "ixchel"], env: companionEnv() });
    try {
      const result = (
        await second.client.callTool({ name: "ixchel_search", arguments: { query: "auto", kind: "report" } })
      ).structuredContent as Hits;
      expect(result.mode).toBe("hybrid");
      expect(result.hits.map((h) => h.id)).toEqual(["rpt-0000f1"]);
      expect(server.requests.map((r) => r.input.length)).toEqual([1, 1]); // the new report, then the query
      expect(server.requests[0]?.input[0]).toContain("Fleet report");
    } finally {
      await second.close();
    }
  });

  it("falls back to lexical with a note when the endpoint fails, never leaking the key", async () => {
    server.failWith = 503;
    const companion = await startCompanion({
      cwd: root,
      args: ["--toolsets", "ixchel"],
      env: companionEnv({ IXCHEL_EMBEDDINGS_MODEL: "another-model" }),
    });
    try {
      const result = await companion.client.callTool({
        name: "ixchel_search",
        arguments: { query: "migrations" },
      });
      const hits = result.structuredContent as Hits;
      expect(result.isError).toBeFalsy();
      expect(hits.mode).toBe("lexical");
      expect(hits.note).toContain("HTTP 503");
      expect(hits.hits[0]?.id).toBe("iss-0000b1");
      expect(textOf(result)).not.toContain(SECRET);
      expect(companion.stderr()).not.toContain(SECRET);
    } finally {
      await companion.close();
    }
  });

  it("says why search is lexical when only half of the configuration is set", async () => {
    const companion = await startCompanion({
      cwd: root,
      args: ["--toolsets", "ixchel"],
      env: { IXCHEL_EMBEDDINGS_URL: server.url },
    });
    try {
      const hits = (
        await companion.client.callTool({ name: "ixchel_search", arguments: { query: "database" } })
      ).structuredContent as Hits;
      expect(hits.mode).toBe("lexical");
      expect(hits.note).toContain("IXCHEL_EMBEDDINGS_MODEL");
      expect(server.requests).toEqual([]);
    } finally {
      await companion.close();
    }
  });
});

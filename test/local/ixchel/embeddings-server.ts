/**
 * A small OpenAI-compatible embeddings endpoint for tests: deterministic vectors from a hashed bag of words,
 * with a few synonyms folded together so that vector search finds what words alone cannot. Records every
 * request it gets.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

const DIMS = 64;
const SYNONYMS: Record<string, string> = { automobile: "car", vehicle: "car", cars: "car", auto: "car" };

export function embed(text: string): number[] {
  const vector = new Array<number>(DIMS).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const word = SYNONYMS[raw] ?? raw;
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    const slot = (h >>> 0) % DIMS;
    vector[slot] = (vector[slot] ?? 0) + 1;
  }
  return vector;
}

export interface EmbeddingsServer {
  url: string;
  requests: { model: string; input: string[]; authorization: string | undefined }[];
  /** When set, every request is answered with this HTTP status. */
  failWith: number | undefined;
  close(): Promise<void>;
}

export async function startEmbeddingsServer(): Promise<EmbeddingsServer> {
  const state: EmbeddingsServer = {
    url: "",
    requests: [],
    failWith: undefined,
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    req.on("end", () => {
      const parsed = JSON.parse(body) as { model: string; input: string[] };
      state.requests.push({
        model: parsed.model,
        input: parsed.input,
        authorization: req.headers.authorization,
      });
      if (state.failWith) {
        res.writeHead(state.failWith, { "content-type": "application/json" }).end('{"error":"down"}');
        return;
      }
      const data = parsed.input.map((text, index) => ({
        object: "embedding",
        index,
        embedding: embed(text),
      }));
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ object: "list", data, model: parsed.model }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${port}/v1/embeddings`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}

/**
 * Child process of reqif-memory.test.ts: reads the ReqIF file named by argv[2] through the reqif format
 * (streamed from disk, as an upload arrives) and prints the resident memory it grew by, as JSON.
 */
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { reqifFormat } from "../../../src/core/interchange/reqif/reqif-format.js";

const file = process.argv[2] as string;
// Everything is loaded; what the process holds now is the idle baseline.
globalThis.gc?.();
const idle = process.memoryUsage().rss;
const doc = await reqifFormat.parse({
  fileName: "big.reqif",
  bytes: () => Promise.reject(new Error("not used")),
  text: () => Promise.reject(new Error("not used")),
  stream: () => Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>,
});
const peak = process.resourceUsage().maxRSS * 1024;
process.stdout.write(
  JSON.stringify({
    idle,
    peak,
    growth: peak - idle,
    epics: doc.epics.length,
    stories: doc.user_stories.length,
    requirements: doc.requirements.length,
    relationships: doc.relationships.length,
  }),
);

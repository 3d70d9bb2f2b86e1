/**
 * Child process of reqif-memory.test.ts: once loaded it says "ready" and waits for a line on stdin (the
 * parent samples its idle resident memory meanwhile), then reads the ReqIF file named by argv[2] through
 * the reqif format (streamed from disk, as an upload arrives) and prints what it read, as JSON.
 */
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { reqifFormat } from "../../../src/core/interchange/reqif/reqif-format.js";

const file = process.argv[2] as string;
globalThis.gc?.();
process.stdout.write("ready\n");
await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));
process.stdin.pause();
const doc = await reqifFormat.parse({
  fileName: "big.reqif",
  bytes: () => Promise.reject(new Error("not used")),
  text: () => Promise.reject(new Error("not used")),
  stream: () => Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>,
});
process.stdout.write(
  JSON.stringify({
    epics: doc.epics.length,
    stories: doc.user_stories.length,
    requirements: doc.requirements.length,
    relationships: doc.relationships.length,
  }),
);

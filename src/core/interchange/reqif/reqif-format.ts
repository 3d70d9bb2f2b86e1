/**
 * The `reqif` entry of the format registry: ReqIF 1.2 export and import (docs/interchange.md, "ReqIF").
 */
import type { ImportInput, InterchangeFormat } from "../formats.js";
import { type ReqifReadOptions, readReqif } from "./reqif-read.js";
import { exportReqif } from "./reqif-write.js";

/** The upload as chunks, read as they arrive (a web stream is async-iterable in Node, not in every type lib). */
async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** A ReqIF format; `options.epicDepth` sets the hierarchy rule's epic depth (default "auto"). */
export function createReqifFormat(options: Omit<ReqifReadOptions, "label"> = {}): InterchangeFormat {
  return {
    name: "reqif",
    contentType: "application/xml",
    extension: ".reqif",
    export: exportReqif,
    parse(input: ImportInput) {
      const label = input.fileName ? `The ReqIF file ${JSON.stringify(input.fileName)}` : "The ReqIF file";
      return readReqif(chunksOf(input.stream()), { ...options, label });
    },
  };
}

export const reqifFormat = createReqifFormat();

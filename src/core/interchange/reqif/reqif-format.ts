/**
 * The `reqif` entry of the format registry: ReqIF 1.2 export and import (docs/interchange.md, "ReqIF").
 */
import { DomainError } from "../../errors.js";
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

/** `epic_depth` of an import: "auto" or a depth 0–9 (docs/interchange.md, the hierarchy rule). */
export function epicDepthOf(value: string): number | "auto" {
  const v = value.trim().toLowerCase();
  if (v === "auto" || v === "") return "auto";
  if (/^\d$/.test(v)) return Number(v);
  throw DomainError.invalid(
    `epic_depth must be "auto" or a depth from 0 to 9 (0: each SPECIFICATION is an epic; 1: its top-level objects are), got "${value}".`,
    [{ field: "epic_depth", message: '"auto" or 0–9' }],
  );
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
      const depth = input.options?.epic_depth;
      const epicDepth = depth === undefined ? options.epicDepth : epicDepthOf(depth);
      return readReqif(chunksOf(input.stream()), {
        ...options,
        ...(epicDepth !== undefined ? { epicDepth } : {}),
        label,
      });
    },
  };
}

export const reqifFormat = createReqifFormat();

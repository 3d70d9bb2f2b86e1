/**
 * How a sync decodes the files it parses (issue 16, item 6): read into one buffer and decoded into one
 * string, which their entities' text (bodies, titles…) are slices of. A cold sync of 10,000 files decoded
 * 10,000 strings of ~1 KB that the graph keeps, and the garbage collector copied them all, twice, during the
 * sync; a batch of hundreds of files is one string too large for the young generation, which is never
 * copied. ASCII text only (the bytes are the characters: a range of the buffer is a range of the string);
 * any other file is decoded on its own. A file parsed again later leaves its old text in its batch's string
 * until every entity of that batch is gone: at most one stale copy per file.
 */
import { isAscii } from "node:buffer";
import type { FileRecord } from "./cache.js";
import { type ParsedFile, parseEntityAt, parseEntityFile } from "./entity.js";

/** The buffer a sync reads the files it parses into. */
export const BATCH_BYTES = 1 << 20;

/** A file read and hashed, waiting to be parsed with the others of its batch. */
export interface PendingFile extends Omit<FileRecord, "parsed"> {
  rel: string;
  /** Its record of the last sync, if any. */
  prior: FileRecord | undefined;
}

export class ParseBatch {
  private batch: Buffer | undefined;
  private used = 0;
  /** The files added since the last flush, and where each one's text is. */
  private readonly files: PendingFile[] = [];
  /** Its text, for a file that is not ASCII (decoded on its own), else undefined: the batch's [start, end). */
  private readonly texts: (string | undefined)[] = [];
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  /** `parsed`: called for each file, in the order they were added, when its batch is decoded. */
  constructor(private readonly parsed: (file: PendingFile, parsed: ParsedFile) => void) {}

  /** The buffer the next file is best read into (readWithStats's `into`), at `offset`. */
  buffer(): Buffer {
    this.batch ??= Buffer.allocUnsafeSlow(BATCH_BYTES);
    return this.batch;
  }

  /** Where in buffer() the next file is best read: after the files of the batch. */
  get offset(): number {
    return this.used;
  }

  /** Adds a file's bytes, read at buffer()[offset] or anywhere else (a file larger than what was left). */
  add(file: PendingFile, bytes: Buffer): void {
    const batch = this.buffer();
    let text: string | undefined;
    let start = 0;
    if (!isAscii(bytes)) text = bytes.toString("utf8");
    else {
      if (bytes.buffer !== batch.buffer && bytes.length <= BATCH_BYTES) {
        // It did not fit after the others: parse those, then start the batch again with it.
        this.flush();
        bytes.copy(batch, 0);
      }
      if (bytes.buffer === batch.buffer || bytes.length <= BATCH_BYTES) {
        start = this.used;
        this.used += bytes.length;
      } else text = bytes.toString("latin1"); // larger than a batch
    }
    this.files.push(file);
    this.texts.push(text);
    this.starts.push(start);
    this.ends.push(this.used);
  }

  /** Decodes the batch and parses every file added since the last flush. */
  flush(): void {
    const n = this.files.length;
    if (n === 0) return;
    const text = this.used > 0 ? (this.batch as Buffer).toString("latin1", 0, this.used) : "";
    for (let i = 0; i < n; i++) {
      const file = this.files[i] as PendingFile;
      const own = this.texts[i];
      this.parsed(
        file,
        own === undefined
          ? parseEntityAt(file.rel, text, this.starts[i] as number, this.ends[i] as number)
          : parseEntityFile(file.rel, own),
      );
    }
    this.files.length = 0;
    this.texts.length = 0;
    this.starts.length = 0;
    this.ends.length = 0;
    this.used = 0;
  }
}

/**
 * A minimal ustar writer and reader for the Markdown export (`.tar.gz` over HTTP). Hand-written because
 * `tar-stream`, the well-kept library, needs Node's `events` (through streamx) and so does not bundle for the
 * Worker, which has no nodejs_compat; what we need is small: regular files, names under 256 bytes, UTF-8.
 * Compression is the platform's `CompressionStream("gzip")`, present in Node ≥ 18 and in workerd.
 */

const BLOCK = 512;
const encoder = new TextEncoder();

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, "0")}\0`;
}

function put(header: Uint8Array, offset: number, text: string, length: number): void {
  const bytes = encoder.encode(text);
  if (bytes.length > length) throw new Error(`tar field too long: ${text}`);
  header.set(bytes, offset);
}

/** The 512-byte header of a regular file `name` (≤ 255 bytes, split at a `/` when over 100). */
export function tarHeader(name: string, size: number, mtimeSeconds: number): Uint8Array {
  const header = new Uint8Array(BLOCK);
  let prefix = "";
  let base = name;
  if (encoder.encode(name).length > 100) {
    const cut = name.lastIndexOf("/", 155);
    if (cut <= 0) throw new Error(`tar name too long: ${name}`);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
  }
  put(header, 0, base, 100);
  put(header, 100, "0000644\0", 8);
  put(header, 108, octal(0, 8), 8);
  put(header, 116, octal(0, 8), 8);
  put(header, 124, octal(size, 12), 12);
  put(header, 136, octal(mtimeSeconds, 12), 12);
  put(header, 148, "        ", 8);
  put(header, 156, "0", 1);
  put(header, 257, "ustar\0", 6);
  put(header, 263, "00", 2);
  put(header, 345, prefix, 155);
  let sum = 0;
  for (const b of header) sum += b;
  put(header, 148, `${sum.toString(8).padStart(6, "0")}\0 `, 8);
  return header;
}

/** The bytes of one file entry: header, content, padding to the block size. */
export function tarEntry(name: string, content: Uint8Array, mtimeSeconds: number): Uint8Array[] {
  const pad = (BLOCK - (content.length % BLOCK)) % BLOCK;
  return [tarHeader(name, content.length, mtimeSeconds), content, new Uint8Array(pad)];
}

/** The end of an archive: two zero blocks. */
export const TAR_END = new Uint8Array(BLOCK * 2);

const decoder = new TextDecoder();

function text(bytes: Uint8Array): string {
  const end = bytes.indexOf(0);
  return decoder.decode(end < 0 ? bytes : bytes.subarray(0, end));
}

/** The regular files of a tar archive (directories and other entries are skipped); throws on a bad header. */
export function readTar(archive: Uint8Array): { name: string; content: Uint8Array }[] {
  const files: { name: string; content: Uint8Array }[] = [];
  let at = 0;
  while (at + BLOCK <= archive.length) {
    const header = archive.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] as number);
    const stored = Number.parseInt(text(header.subarray(148, 156)).trim(), 8);
    if (stored !== sum) throw new Error(`not a tar archive (bad header checksum at byte ${at})`);
    const size = Number.parseInt(text(header.subarray(124, 136)).trim() || "0", 8);
    const type = String.fromCharCode(header[156] as number);
    const prefix = text(header.subarray(345, 500));
    const name = prefix ? `${prefix}/${text(header.subarray(0, 100))}` : text(header.subarray(0, 100));
    const start = at + BLOCK;
    if (start + size > archive.length) throw new Error(`tar archive cut short in ${name}`);
    if (type === "0" || type === "\0") files.push({ name, content: archive.slice(start, start + size) });
    at = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return files;
}

/** Everything a readable stream yields, as one array. */
export async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.length;
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

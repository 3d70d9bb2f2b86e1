/**
 * The ReqIF entries of the format registry. Its own module so that the Worker build can leave ReqIF out:
 * wrangler.toml's `[alias]` replaces this specifier with `src/worker-stubs/reqif-entry.ts` (no formats),
 * keeping saxes and the converters (~17 KiB gzipped) out of a bundle that has a size budget. On Workers,
 * `format=reqif` is then refused as "not available in this build"; the Node server and the admin CLI have it.
 */
import type { InterchangeFormat } from "../formats.js";
import { reqifFormat } from "./reqif-format.js";

export const reqifFormats: readonly InterchangeFormat[] = [reqifFormat];

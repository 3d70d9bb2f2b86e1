/** The zod schema of every id argument: even an empty one is answered with the id format and an example. */
import * as z from "zod";
import { ID_FORMAT_HINT } from "./kinds.js";

export function idArg(description: string) {
  return z
    .string()
    .min(1, { error: `required: an ixchel id; ${ID_FORMAT_HINT}` })
    .describe(description);
}

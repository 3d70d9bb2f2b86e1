/**
 * The formats this build can export and import. A format module adds itself here (one line), and every
 * face (HTTP export/import, admin CLI, `export_requirements`) offers it.
 */
import { DomainError } from "../errors.js";
import { csvFormat } from "./csv-format.js";
import type { InterchangeFormat } from "./formats.js";
import { jsonFormat } from "./json-format.js";
import { markdownFormat } from "./markdown-format.js";
import { reqifFormat } from "./reqif/reqif-format.js";

export const INTERCHANGE_FORMATS: readonly InterchangeFormat[] = [
  jsonFormat,
  csvFormat,
  markdownFormat,
  reqifFormat,
];

export function formatNames(): string[] {
  return INTERCHANGE_FORMATS.map((f) => f.name);
}

/** The format called `name`; invalid_input naming the formats there are otherwise. */
export function interchangeFormat(name: string | undefined, field = "format"): InterchangeFormat {
  const found = INTERCHANGE_FORMATS.find((f) => f.name === name?.trim().toLowerCase());
  if (found) return found;
  const known = formatNames().join(", ");
  const message =
    name === undefined || name.trim() === ""
      ? `Missing ${field}: pass one of ${known}.`
      : `Unknown ${field} "${name}": pass one of ${known}.`;
  throw DomainError.invalid(message, [{ field, message: `one of ${known}` }]);
}

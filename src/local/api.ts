/**
 * The package's programmatic entry (`import … from "reqlix-mcp"`, REQ-10 of knowledge-docsets): start the
 * companion from your own script, or use the docset contract (config parsing, local paths, instruction
 * templates) exactly as the `knowledge` toolset does. Importing it starts nothing.
 */

export {
  type CompiledTemplate,
  compileTemplate,
  DEFAULT_DOCS_ROOT,
  DEFAULT_TEMPLATE,
  docsetLocalPath,
  docsetNameProblem,
  joinKeywords,
  renderTemplate,
} from "../core/docsets.js";
export {
  type ConfigParseResult,
  type ConfigProblem,
  catalogFromConfig,
  type DocsetsConfig,
  formatConfigProblems,
  parseDocsetsConfig,
} from "../core/docsets-config.js";
export { type CompanionOptions, runCompanion } from "./main.js";

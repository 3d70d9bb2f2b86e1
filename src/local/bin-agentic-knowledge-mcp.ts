// REQ-10: `agentic-knowledge-mcp` is the companion serving only the knowledge toolset (search_docs, list_docsets).
import { runCompanion } from "./main.js";

await runCompanion({ program: "agentic-knowledge-mcp", defaultToolsets: ["knowledge"] });

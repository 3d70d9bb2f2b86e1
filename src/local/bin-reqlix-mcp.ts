import { runCompanion } from "./main.js";

await runCompanion({ program: "reqlix-mcp" });

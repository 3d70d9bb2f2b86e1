// `reqlix-mcp trace` (CI) evaluates only the scanner's modules, not the MCP server's: in the bundle both are
// lazily initialised, and a rescan after a few changed files is short enough for module start-up to count.
import { startEarlyProbe } from "./trace/git-probe.js";

if (process.argv[2] === "trace") {
  // git's stat of every tracked file (a rescan's longest step) runs while the scanner's part compiles.
  startEarlyProbe(process.argv.slice(3), process.cwd());
  const { runTraceProcess } = await import("./trace/cli.js");
  await runTraceProcess(process.argv.slice(3));
} else {
  const { runCompanion } = await import("./main.js");
  await runCompanion({ program: "reqlix-mcp" });
}

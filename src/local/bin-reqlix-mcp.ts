// `reqlix-mcp trace` (CI) evaluates only the scanner's modules, not the MCP server's: in the bundle both are
// lazily initialised, and a rescan after a few changed files is short enough for module start-up to count.
if (process.argv[2] === "trace") {
  const { runTraceProcess } = await import("./trace/cli.js");
  await runTraceProcess(process.argv.slice(3));
} else {
  const { runCompanion } = await import("./main.js");
  await runCompanion({ program: "reqlix-mcp" });
}

export {};

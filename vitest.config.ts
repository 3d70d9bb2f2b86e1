import { defineConfig } from "vitest/config";
import { SummaryLineReporter } from "./test/helpers/summary-reporter.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Real processes and real databases: give them room on a shared 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Servers the suites spawn (src/node.ts inherits this) serve every toolset: the suites exercise every
    // tool. The default toolsets have their own tests (test/http/faces/toolsets.test.ts sets them).
    env: { REQLIX_DEFAULT_TOOLSETS: "all" },
    setupFiles: ["test/helpers/fast-check-seed.ts"],
    reporters: ["default", new SummaryLineReporter()],
  },
});

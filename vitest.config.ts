import { defineConfig } from "vitest/config";
import { SummaryLineReporter } from "./test/helpers/summary-reporter.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Real processes and real databases: give them room on a shared 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    reporters: ["default", new SummaryLineReporter()],
  },
});

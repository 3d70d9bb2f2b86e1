/**
 * Prints one plain closing line, `N passed, N failed, N skipped`, after vitest's own summary, so CI (and
 * anyone grepping a log) can read the outcome without parsing vitest's colored table.
 */
import type { Reporter, TestModule } from "vitest/node";

export class SummaryLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      const tests = [...module.children.allTests()];
      // A file that failed without a failing test (a hook, an import) counts as one failure, so the line
      // never reads "0 failed" for a red run.
      if (module.state() === "failed" && !tests.some((t) => t.result().state === "failed")) failed++;
      for (const test of tests) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

// A vitest reporter that writes each test file's durations as JSON to the file named by
// AIRLOCK_DURATIONS (scripts/test.mjs sets it per pass: test-results/<pass>.json), so slow
// suites are visible in every run. Per file: its tests and hooks (`runMs`), importing it
// (`collectMs`, which includes top-level awaits), the setup files (`setupMs`), its state and its
// count of tests. Without AIRLOCK_DURATIONS it writes nothing.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

export interface FileDurations {
  file: string;
  state: string;
  tests: number;
  runMs: number;
  collectMs: number;
  setupMs: number;
}

export default class DurationsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const target = process.env.AIRLOCK_DURATIONS;
    if (target === undefined || target === "") return;
    const files: FileDurations[] = testModules.map((m) => {
      const d = m.diagnostic();
      return {
        file: m.relativeModuleId,
        state: m.state(),
        tests: [...m.children.allTests()].length,
        runMs: Math.round(d.duration),
        collectMs: Math.round(d.collectDuration),
        setupMs: Math.round(d.setupDuration),
      };
    });
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `${JSON.stringify({ writtenAt: new Date().toISOString(), files }, null, 2)}\n`);
  }
}

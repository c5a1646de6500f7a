// A valid evidence record for tests to vary.
import type { EvidenceRecord } from "../../../src/evidence/index.js";

export function sampleRecord(overrides: Partial<EvidenceRecord> = {}): EvidenceRecord {
  return {
    schemaVersion: 1,
    repository: "acme/api",
    handoffVersionId: "ver_123",
    startedAt: "2026-11-22T05:00:00.000Z",
    endedAt: "2026-11-22T05:00:01.500Z",
    durationMs: 1500,
    outcome: "failed",
    exitCode: 3,
    signal: null,
    runnerExitStatus: 3,
    timeoutSeconds: 900,
    readiness: { status: "unknown", note: "not checked: the startup script failed", checks: [] },
    output: {
      bytes: 10,
      lines: 1,
      truncated: false,
      head: "hello\n",
      tail: "",
      stoppedReadingAfterExit: false,
    },
    redactions: {},
    runtime: { node: "v22.0.0", shell: "GNU bash, version 5.2", platform: "linux" },
    runnerError: null,
    trimmed: false,
    ...overrides,
  };
}

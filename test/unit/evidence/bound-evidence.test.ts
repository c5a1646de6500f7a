// boundEvidence keeps the record's JSON within its byte limit, trimming output first and never dropping the
// outcome, exit status or timings.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  boundEvidence,
  DEFAULT_EVIDENCE_LIMIT_BYTES,
  type EvidenceRecord,
  EvidenceRecordSchema,
  evidenceSize,
} from "../../../src/evidence/index.js";
import { sampleRecord } from "./sample-record.js";

const byteLength = (record: EvidenceRecord) => Buffer.byteLength(JSON.stringify(record));

describe("boundEvidence", () => {
  it("returns a small record unchanged", () => {
    const record = sampleRecord();
    expect(boundEvidence(record)).toEqual(record);
  });

  it("trims a huge head and tail to 32 KiB of JSON, keeping outcome, exit status and timings", () => {
    const record = sampleRecord({
      output: {
        bytes: 50_000_000,
        lines: 1_000_000,
        truncated: true,
        head: `first line\n${'h\u00e9\u{1F600}"\\\n'.repeat(20_000)}`,
        tail: `${"t\u00e9\u{1F600}\u0001".repeat(20_000)}last line\n`,
        stoppedReadingAfterExit: false,
      },
    });
    const bounded = boundEvidence(record);
    expect(byteLength(bounded)).toBeLessThanOrEqual(DEFAULT_EVIDENCE_LIMIT_BYTES);
    expect(evidenceSize(bounded)).toBe(byteLength(bounded));
    expect(bounded.output.head.startsWith("first line\n")).toBe(true);
    expect(bounded.output.tail.endsWith("last line\n")).toBe(true);
    expect(bounded.output.head.length).toBeGreaterThan(1000);
    const { output: _o, ...fixed } = bounded;
    const { output: _r, ...original } = record;
    expect(fixed).toEqual(original);
    expect(EvidenceRecordSchema.parse(bounded)).toEqual(bounded);
  });

  it("shortens readiness details, errors and redaction lists once the output is gone", () => {
    const record = sampleRecord({
      runnerError: "e".repeat(100_000),
      readiness: {
        status: "not_ready",
        note: "n".repeat(5000),
        checks: Array.from({ length: 300 }, (_, i) => ({
          kind: "http" as const,
          target: `http://127.0.0.1:${i}/${"p".repeat(500)}`,
          deadlineSeconds: 5,
          ok: false,
          durationMs: 5000,
          detail: "d".repeat(1000),
        })),
      },
      redactions: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`SECRET_${i}`, i])),
    });
    const bounded = boundEvidence(record, 8192);
    expect(byteLength(bounded)).toBeLessThanOrEqual(8192);
    expect(bounded.trimmed).toBe(true);
    expect(bounded.outcome).toBe("failed");
    expect(bounded.exitCode).toBe(3);
    expect(bounded.durationMs).toBe(1500);
    expect(EvidenceRecordSchema.safeParse(bounded).success).toBe(true);
  });

  it("always fits the limit, whatever the sizes (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 20_000 }),
        fc.string({ unit: "binary", maxLength: 20_000 }),
        fc.option(fc.string({ maxLength: 5000 })),
        fc.integer({ min: 2048, max: 40_000 }),
        (head, tail, runnerError, limit) => {
          const record = sampleRecord({
            runnerError,
            output: { bytes: 1, lines: 1, truncated: false, head, tail, stoppedReadingAfterExit: true },
          });
          const bounded = boundEvidence(record, limit);
          expect(byteLength(bounded)).toBeLessThanOrEqual(limit);
          expect(bounded.outcome).toBe(record.outcome);
          expect(bounded.startedAt).toBe(record.startedAt);
        },
      ),
      { numRuns: 60 },
    );
  });
});

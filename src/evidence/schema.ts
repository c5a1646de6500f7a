// The evidence record as a zod schema (for tests, the CLI and the exported JSON Schema). The runner bundle
// does not import zod; record.ts holds the same shape as plain types and this file checks they agree.
import * as z from "zod";
import {
  EVIDENCE_OUTCOMES,
  EVIDENCE_SCHEMA_VERSION,
  type EvidenceRecord,
  READINESS_STATUSES,
} from "./record.js";

export const ReadinessCheckResultSchema = z.strictObject({
  kind: z.enum(["http", "tcp", "command"]),
  target: z.string(),
  deadlineSeconds: z.number().positive(),
  ok: z.boolean(),
  durationMs: z.number().nonnegative(),
  detail: z.string(),
});

export const EvidenceRecordSchema = z
  .strictObject({
    schemaVersion: z.literal(EVIDENCE_SCHEMA_VERSION),
    repository: z.string().nullable(),
    handoffVersionId: z.string().nullable(),
    startedAt: z.iso.datetime(),
    endedAt: z.iso.datetime(),
    durationMs: z.number().nonnegative(),
    outcome: z.enum(EVIDENCE_OUTCOMES),
    exitCode: z.number().int().nullable(),
    signal: z.string().nullable(),
    runnerExitStatus: z.number().int().min(0).max(255),
    timeoutSeconds: z.number().positive(),
    readiness: z.strictObject({
      status: z.enum(READINESS_STATUSES),
      note: z.string(),
      checks: z.array(ReadinessCheckResultSchema),
    }),
    output: z.strictObject({
      bytes: z.number().int().nonnegative(),
      lines: z.number().int().nonnegative(),
      truncated: z.boolean(),
      head: z.string(),
      tail: z.string(),
      stoppedReadingAfterExit: z.boolean(),
    }),
    redactions: z.record(z.string(), z.number().int().nonnegative()),
    runtime: z.strictObject({ node: z.string(), shell: z.string().nullable(), platform: z.string() }),
    runnerError: z.string().nullable(),
    trimmed: z.boolean(),
  })
  .meta({
    title: "Baton startup evidence",
    description: "Bounded, sanitised record of one startup-runner run (README: Startup runner and evidence).",
  });

type Inferred = z.infer<typeof EvidenceRecordSchema>;
// Both directions must hold: the zod schema and the plain type describe the same record.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: Same<Inferred, EvidenceRecord> = true;
void sameShape;

/** The JSON Schema committed at schemas/evidence.schema.json (scripts/generate-evidence-schema.mjs writes it). */
export function evidenceJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(EvidenceRecordSchema, { target: "draft-2020-12" }) as Record<string, unknown>;
}

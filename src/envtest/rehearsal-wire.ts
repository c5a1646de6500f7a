// What `baton env rehearse` (in the box) tells `baton env test` (on the host), one JSON object per line on its
// standard output: each step as it starts, then its outcome. The host shows progress from the first kind and
// builds its result from the second; it answers one line on the rehearsal's standard input when the startup step
// has ended (it has flushed the proxy's refusals by then, so the disclosure shows them).
import * as z from "zod";

export const REHEARSAL_STEPS = ["activate", "dockerfile", "startup", "disclose"] as const;
export type RehearsalStepName = (typeof REHEARSAL_STEPS)[number];

const StepName = z.enum(REHEARSAL_STEPS);

export const RehearsalLineSchema = z.union([
  z.object({ started: StepName }).strict(),
  z
    .object({
      step: StepName,
      ok: z.boolean(),
      durationMs: z.number().int().nonnegative(),
      detail: z.string().optional(),
      /** The step's own document: the activation's `--json`, the runner's evidence, the disclosure. */
      output: z.unknown().optional(),
    })
    .strict(),
]);
export type RehearsalLine = z.infer<typeof RehearsalLineSchema>;
export type RehearsalOutcome = Extract<RehearsalLine, { step: RehearsalStepName }>;

/** Parses one line the rehearsal wrote; null for anything that is not one of its lines. */
export function parseRehearsalLine(text: string): RehearsalLine | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  return RehearsalLineSchema.safeParse(parsed).data ?? null;
}

/** The last line of a program's output, for a one-line reason. */
export function lastLine(text: string): string {
  return text.trim().split("\n").at(-1)?.slice(0, 300) ?? "";
}

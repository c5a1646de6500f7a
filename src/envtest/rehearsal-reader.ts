// Reads what `baton env rehearse` wrote, line by line, into the steps' outcomes: shared by the host that streams
// its lines as they come (a throwaway box of its own) and the one that gets them all at the end (a long-lived
// `baton serve`'s admin exec), so both report the same steps. Pure: the caller measures time.
import {
  parseRehearsalLine,
  REHEARSAL_STEPS,
  type RehearsalLine,
  type RehearsalOutcome,
  type RehearsalStepName,
} from "./rehearsal-wire.js";

export class RehearsalReader {
  readonly outcomes: RehearsalOutcome[] = [];
  /** The step that started last (the first step before any line). */
  current: RehearsalStepName = REHEARSAL_STEPS[0];

  /** Takes one line; returns it parsed (null for anything that is not one of the rehearsal's lines). */
  read(text: string): RehearsalLine | null {
    const line = parseRehearsalLine(text);
    if (!line) return null;
    if ("started" in line) this.current = line.started;
    else this.outcomes.push(line);
    return line;
  }

  /** The step that started and never reported its outcome: the rehearsal ended or was stopped in it. */
  unfinished(): RehearsalStepName | null {
    return this.outcomes.some((outcome) => outcome.step === this.current) ? null : this.current;
  }

  /** Every outcome, the unfinished step's as a failure for `why` when there is one. */
  finish(why: () => string, unfinishedMs: number): RehearsalOutcome[] {
    const step = this.unfinished();
    if (step === null) return this.outcomes;
    return [
      ...this.outcomes,
      { step, ok: false, durationMs: Math.max(0, Math.round(unfinishedMs)), detail: why() },
    ];
  }
}

/** Every line of a finished rehearsal's standard output, read at once. */
export function readRehearsalOutput(stdout: string): RehearsalReader {
  const reader = new RehearsalReader();
  for (const text of stdout.split("\n")) reader.read(text);
  return reader;
}

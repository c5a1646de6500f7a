// The host's side of `baton env rehearse` (src/envtest/rehearse.ts): starts it in the box, reads its lines, shows
// each step as it starts, lets the host act between the startup and the disclosure, and stops a step that says
// nothing for too long. A rehearsal that ends early is reported as a failure of the step it was in.
import { RehearsalReader } from "../envtest/rehearsal-reader.js";
import { lastLine, type RehearsalOutcome, type RehearsalStepName } from "../envtest/rehearsal-wire.js";
import type { BoxProcess } from "./adapters/sandboxes/driver.js";

/** How long past a step's own time limit the host waits before it stops the rehearsal. */
export const REHEARSAL_GRACE_MS = 10_000;

export interface RehearsalRun {
  start: () => Promise<BoxProcess>;
  /** The longest the rehearsal may go without writing a line. */
  silenceLimitMs: number;
  onStarted: (step: RehearsalStepName) => void;
  /** Awaited once the startup step has ended, before the rehearsal may disclose. */
  beforeDisclose: () => Promise<void>;
}

export async function rehearseInBox(run: RehearsalRun): Promise<RehearsalOutcome[]> {
  const reader = new RehearsalReader();
  let began = performance.now();
  const rehearsal = await run.start();
  let silentTooLong = false;
  let watchdog: NodeJS.Timeout | undefined;
  const rearm = () => {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      silentTooLong = true;
      void rehearsal.kill();
    }, run.silenceLimitMs);
  };
  const stdin = rehearsal.stdin.getWriter();
  try {
    rearm();
    for await (const text of lines(rehearsal.stdout)) {
      const line = reader.read(text);
      if (!line) continue;
      rearm();
      if ("started" in line) {
        began = performance.now();
        run.onStarted(line.started);
        continue;
      }
      if (line.step === "startup") {
        await run.beforeDisclose();
        await stdin.write(new TextEncoder().encode("\n")).catch(() => undefined);
      }
    }
    const exit = await rehearsal.exited;
    return reader.finish(
      () =>
        silentTooLong
          ? `stopped after ${Math.round(run.silenceLimitMs / 1000)} s without progress`
          : `baton env rehearse ended (${exit.error ?? `exit ${exit.code ?? exit.signal}`}) during ${reader.current}: ${lastLine(rehearsal.stderrTail())}`,
      performance.now() - began,
    );
  } finally {
    clearTimeout(watchdog);
    await stdin.close().catch(() => undefined);
    await rehearsal.kill();
  }
}

async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffered = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      yield buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf("\n");
    }
  }
  if (buffered) yield buffered;
}

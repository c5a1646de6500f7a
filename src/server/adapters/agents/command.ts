// The `command` agent: runs a configured agent program in the task's sandbox, once per turn, in its own process
// group. The turn (task, conversation) goes in on stdin as JSON; the sandbox's variables are set, so the program
// can run `baton env activate`; its reply is the JSON it prints on stdout (AgentReplySchema), or
// `{"error": "..."}` / `{"needsAccess": "..."}`. A time limit and the stop signal end the whole group. Everything
// it says is sanitised with the sandbox's credentials before it reaches the conversation. With a sandbox driver
// the program runs inside the task's box instead of on the service's machine.
import { StringDecoder } from "node:string_decoder";
import { z } from "zod";
import { withoutOperatorCredentials } from "../../../credentials/operator-credentials.js";
import { createSanitiser } from "../../../evidence/index.js";
import { loadExeca } from "../processes/load-execa.js";
import { AgentReplySchema, type AgentRunner, type RunTurnInput, type TurnResult } from "./port.js";

export interface CommandAgentOptions {
  /** The program and its arguments (no shell). */
  argv: readonly string[];
  timeoutMs: number;
  /** Variables passed through from the service's environment (PATH and the like); nothing else leaks in. */
  baseEnv: Readonly<Record<string, string>>;
  /** Most bytes of stdout kept (a reply is JSON of at most about 100 KB). */
  maxStdoutBytes?: number;
}

const KILL_GRACE_MS = 3000;
const STDERR_TAIL = 2000;

const OtherReplySchema = z.union([
  z.object({ error: z.string().min(1).max(2000) }),
  z.object({ needsAccess: z.string().min(1).max(2000) }),
]);

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

export function turnPayload(input: RunTurnInput): string {
  return `${JSON.stringify({ task: input.task, conversation: input.conversation })}\n`;
}

export function createCommandAgent(options: CommandAgentOptions): AgentRunner {
  const maxStdout = options.maxStdoutBytes ?? 1024 * 1024;
  return {
    name: "command",
    async runTurn(input: RunTurnInput): Promise<TurnResult> {
      const sanitiser = createSanitiser({ secrets: input.sandbox.secrets });
      const clean = (text: string) => sanitiser.sanitise(text).text;
      if (input.sandbox.box) return runInBox(input, input.sandbox.box, options, maxStdout, clean);
      const execa = await loadExeca();
      const child = execa(options.argv[0]!, options.argv.slice(1), {
        cwd: input.sandbox.workdir,
        env: withoutOperatorCredentials({ ...options.baseEnv, ...input.sandbox.env }),
        extendEnv: false,
        input: turnPayload(input),
        buffer: false,
        reject: false,
        detached: true,
        cleanup: true,
      });
      const out = new StringDecoder("utf8");
      const err = new StringDecoder("utf8");
      let stdout = "";
      let stdoutBytes = 0;
      let overflow = false;
      let stderr = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        stdoutBytes += chunk.length;
        if (stdoutBytes > maxStdout) overflow = true;
        else stdout += out.write(chunk);
      });
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr = (stderr + err.write(chunk)).slice(-STDERR_TAIL * 2);
      });
      let ended: "timeout" | "stopped" | null = null;
      let graceTimer: NodeJS.Timeout | undefined;
      const end = (why: "timeout" | "stopped") => {
        if (ended) return;
        ended = why;
        killGroup(child.pid, "SIGTERM");
        graceTimer = setTimeout(() => killGroup(child.pid, "SIGKILL"), KILL_GRACE_MS);
      };
      const timer = setTimeout(() => end("timeout"), options.timeoutMs);
      const onAbort = () => end("stopped");
      if (input.signal.aborted) onAbort();
      else input.signal.addEventListener("abort", onAbort, { once: true });
      const result = await child;
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      input.signal.removeEventListener("abort", onAbort);
      // What the program started in the background ends with its turn.
      killGroup(child.pid, "SIGKILL");
      stdout += out.end();
      const tail = clean(stderr.slice(-STDERR_TAIL)).trim();
      if (ended === "stopped") return { kind: "error", code: "stopped", reason: "the turn was stopped" };
      if (ended === "timeout")
        return {
          kind: "error",
          code: "timed_out",
          reason: `the agent program ran past its ${Math.round(options.timeoutMs / 1000)} s limit`,
        };
      if (result.exitCode === undefined && !result.signal)
        return {
          kind: "error",
          code: "agent_failed",
          reason: clean(`the agent program could not start: ${result.shortMessage ?? ""}`),
        };
      if (result.exitCode !== 0)
        return {
          kind: "error",
          code: "agent_failed",
          reason: `the agent program exited with ${result.signal ? `signal ${result.signal}` : `status ${result.exitCode}`}${tail ? `: ${tail}` : ""}`,
        };
      if (overflow)
        return {
          kind: "error",
          code: "invalid_reply",
          reason: `the agent program printed more than ${maxStdout} bytes on stdout`,
        };
      return parseReply(stdout, clean);
    },
  };
}

/**
 * The same turn inside the task's box (a sandbox driver is configured): the program the service installed there
 * (or, when it installed none, the argv as given, for a program in the image), the turn on stdin, the turn's
 * variables on top of the box's own; the box's exec bounds the output and ends the command at the limit or stop.
 */
async function runInBox(
  input: RunTurnInput,
  box: NonNullable<RunTurnInput["sandbox"]["box"]>,
  options: CommandAgentOptions,
  maxStdout: number,
  clean: (text: string) => string,
): Promise<TurnResult> {
  const [program, ...args] = options.argv;
  const result = await box.exec([box.programPath(program!) ?? program!, ...args], {
    stdin: turnPayload(input),
    env: withoutOperatorCredentials(input.sandbox.env),
    timeoutMs: options.timeoutMs,
    signal: input.signal,
  });
  if (input.signal.aborted) return { kind: "error", code: "stopped", reason: "the turn was stopped" };
  if (result.timedOut)
    return {
      kind: "error",
      code: "timed_out",
      reason: `the agent program ran past its ${Math.round(options.timeoutMs / 1000)} s limit`,
    };
  if (result.exitCode !== 0) {
    const tail = clean(result.stderr.slice(-STDERR_TAIL)).trim();
    return {
      kind: "error",
      code: "agent_failed",
      reason: `the agent program exited with status ${result.exitCode}${tail ? `: ${tail}` : ""}`,
    };
  }
  if (Buffer.byteLength(result.stdout) > maxStdout)
    return {
      kind: "error",
      code: "invalid_reply",
      reason: `the agent program printed more than ${maxStdout} bytes on stdout`,
    };
  return parseReply(result.stdout, clean);
}

/**
 * The program's stdout as a turn result: the last non-empty line must be the JSON reply. Every text in it passes
 * through `clean` (the sanitiser) after parsing, so a redaction can never break the JSON.
 */
export function parseReply(stdout: string, clean: (text: string) => string): TurnResult {
  const line = stdout.trim().split("\n").at(-1) ?? "";
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return {
      kind: "error",
      code: "invalid_reply",
      reason: "the agent program's last line on stdout is not JSON; print one reply object",
    };
  }
  const other = OtherReplySchema.safeParse(raw);
  if (other.success) {
    return "error" in other.data
      ? { kind: "error", code: "agent_failed", reason: clean(other.data.error) }
      : { kind: "needs_access", reason: clean(other.data.needsAccess) };
  }
  const reply = AgentReplySchema.safeParse(raw);
  if (!reply.success) {
    const issue = reply.error.issues[0]!;
    return {
      kind: "error",
      code: "invalid_reply",
      reason: `the agent program's reply: ${issue.path.join(".") || "(reply)"}: ${issue.message}`,
    };
  }
  const { body, files, pullRequest, kind } = reply.data;
  return {
    kind: "reply",
    reply: {
      kind,
      body: clean(body),
      ...(files ? { files: files.map(clean) } : {}),
      ...(pullRequest
        ? {
            pullRequest: {
              ...pullRequest,
              ...(pullRequest.title ? { title: clean(pullRequest.title) } : {}),
              // The port carries a description now: it reaches the code host, so it is cleaned as the reply is.
              ...(pullRequest.body === undefined ? {} : { body: clean(pullRequest.body) }),
            },
          }
        : {}),
    },
  };
}

// `baton env test`'s readiness flags made into the runner's readiness checks (pure). A bad value is a UsageError
// naming the flag (and which one, when it is repeated) and never quoting it: a URL may carry a password.
import * as z from "zod";
import { UsageError } from "../errors.js";
import type { ReadinessCheck } from "../transport/wire.js";

/** The deadline each check gets without `--ready-timeout` (the runner has none of its own: the handoff sets it). */
export const DEFAULT_READY_TIMEOUT_SECONDS = 30;
/** More checks than this is a mistake, not an environment (and each one runs at once inside the box). */
export const MAX_READINESS_CHECKS = 32;
const MAX_COMMAND_CHARS = 4096;

export interface ReadinessFlags {
  readyUrl: readonly string[];
  readyTcp: readonly string[];
  readyCommand: readonly string[];
  /** Each check's deadline, seconds. */
  readyTimeout: number;
  /** `--timeout`: the limit on the whole startup step (script and checks), which the deadline must fit inside. */
  stepTimeout: number;
}

const ReadyUrlSchema = z.string().refine((value) => {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}, "must be an http:// or https:// URL with a host, e.g. http://127.0.0.1:3000/health");

// A check's target is written to the handoff and the evidence, and named in progress lines: no credentials.
const NoCredentialsSchema = z
  .string()
  .refine(
    (value) => new URL(value).username === "" && new URL(value).password === "",
    "must not carry a user name or password (the URL is written to the handoff and the evidence)",
  );

const ReadyTcpSchema = z
  .string()
  .regex(
    /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([1-9]\d{0,4})$/,
    "must be host:port, e.g. 127.0.0.1:5432 or [::1]:5432",
  )
  .refine((value) => Number(value.slice(value.lastIndexOf(":") + 1)) <= 65535, "must have a port 1 to 65535");

const ReadyCommandSchema = z
  .string()
  .refine((value) => value.trim() !== "", "must be a command for bash -c, e.g. 'pg_isready -h 127.0.0.1'")
  .refine((value) => value.length <= MAX_COMMAND_CHARS, `must be at most ${MAX_COMMAND_CHARS} characters`);

/** The checks in flag order (URLs, then TCP ports, then commands), each with `readyTimeout` as its deadline. */
export function parseReadinessFlags(flags: ReadinessFlags): ReadinessCheck[] {
  const count = flags.readyUrl.length + flags.readyTcp.length + flags.readyCommand.length;
  if (count > MAX_READINESS_CHECKS)
    throw new UsageError(
      `--ready-url, --ready-tcp and --ready-command give ${count} checks; at most ${MAX_READINESS_CHECKS}`,
      { path: "--ready-url" },
    );
  if (count > 0 && flags.readyTimeout >= flags.stepTimeout)
    throw new UsageError(
      `--ready-timeout (${flags.readyTimeout} s) must be less than --timeout (${flags.stepTimeout} s), which limits the whole startup step; lower the one or raise the other`,
      { path: "--ready-timeout" },
    );
  const deadlineSeconds = flags.readyTimeout;
  return [
    ...flags.readyUrl.map((value, i, all) => {
      check("--ready-url", ReadyUrlSchema, value, i, all.length);
      check("--ready-url", NoCredentialsSchema, value, i, all.length);
      return { kind: "http" as const, url: value, deadlineSeconds };
    }),
    ...flags.readyTcp.map((value, i, all) => {
      check("--ready-tcp", ReadyTcpSchema, value, i, all.length);
      const colon = value.lastIndexOf(":");
      const host = value.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
      return { kind: "tcp" as const, host, port: Number(value.slice(colon + 1)), deadlineSeconds };
    }),
    ...flags.readyCommand.map((value, i, all) => {
      check("--ready-command", ReadyCommandSchema, value, i, all.length);
      return { kind: "command" as const, command: value, deadlineSeconds };
    }),
  ];
}

function check(flag: string, schema: z.ZodType<string>, value: string, index: number, of: number): void {
  const parsed = schema.safeParse(value);
  if (parsed.success) return;
  const which = of > 1 ? ` (#${index + 1} of ${of})` : "";
  throw new UsageError(`${flag}${which} ${parsed.error.issues[0]!.message}`, { path: flag });
}

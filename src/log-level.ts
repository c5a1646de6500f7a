// Which log level BATON_LOG_LEVEL asks for. Pure and tiny, so the CLI can check it before loading pino.
import { ConfigError } from "./errors.js";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Unset or empty means `silent`; anything outside LOG_LEVELS is refused, naming the allowed values. */
export function readLogLevel(env: NodeJS.ProcessEnv): LogLevel {
  const raw = env.BATON_LOG_LEVEL;
  if (raw === undefined || raw.trim() === "") return "silent";
  const level = raw.trim().toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel;
  const shown = raw.length > 20 ? `${raw.slice(0, 20)}…` : raw;
  throw new ConfigError(
    `BATON_LOG_LEVEL is ${JSON.stringify(shown)}; set it to one of ${LOG_LEVELS.join(", ")} (or leave it unset for no logs)`,
  );
}

/** The logging calls Baton's own modules make; pino's Logger fits, and SILENT_LOG does nothing. */
export interface Log {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export const SILENT_LOG: Log = { debug() {}, info() {}, warn() {} };

// Which log level BATON_LOG_LEVEL asks for. Pure and tiny, so the CLI can check it before loading pino.
import { ConfigError } from "./errors.js";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The level of the long-running services when BATON_LOG_LEVEL is unset: their security events are an audit trail. */
export const SERVICE_LOG_LEVEL: LogLevel = "info";

/**
 * Unset or empty means `fallback` (`silent` for one-shot commands, SERVICE_LOG_LEVEL for `baton serve` and
 * `baton proxy`); anything outside LOG_LEVELS is refused, naming the allowed values.
 */
export function readLogLevel(env: NodeJS.ProcessEnv, fallback: LogLevel = "silent"): LogLevel {
  const raw = env.BATON_LOG_LEVEL;
  if (raw === undefined || raw.trim() === "") return fallback;
  const level = raw.trim().toLowerCase();
  if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel;
  const shown = raw.length > 20 ? `${raw.slice(0, 20)}…` : raw;
  throw new ConfigError(
    `BATON_LOG_LEVEL is ${JSON.stringify(shown)}; set it to one of ${LOG_LEVELS.join(", ")} (or leave it unset for the default)`,
  );
}

/** The logging calls Baton's own modules make; pino's Logger fits, and SILENT_LOG does nothing. */
export interface Log {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export const SILENT_LOG: Log = { debug() {}, info() {}, warn() {} };

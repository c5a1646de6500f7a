// pino logging to stderr at BATON_LOG_LEVEL; unset, quiet for one-shot commands and info for the services. Loaded only by commands that log: the CLI
// checks the level first (src/log-level.ts) and loads this module only when a level other than silent is set.
import { type Logger, pino } from "pino";
import { type LogLevel, readLogLevel } from "./log-level.js";

/** Throws a ConfigError naming the allowed values when BATON_LOG_LEVEL is not one of them. */
export function createLogger(env: NodeJS.ProcessEnv, name = "baton", fallback: LogLevel = "silent"): Logger {
  const level = readLogLevel(env, fallback);
  // Keys that may carry secrets are censored even if a caller logs a whole object by mistake.
  return pino(
    {
      name,
      level,
      redact: {
        paths: [
          "value",
          "*.value",
          "secret",
          "*.secret",
          "token",
          "*.token",
          "authorization",
          "*.authorization",
        ],
        censor: "[REDACTED]",
      },
    },
    pino.destination({ fd: 2, sync: true }),
  );
}

export type { Logger };

// pino logging to stderr, quiet unless BATON_LOG_LEVEL says otherwise. Loaded only by commands that log: the CLI
// checks the level first (src/log-level.ts) and loads this module only when a level other than silent is set.
import { type Logger, pino } from "pino";
import { readLogLevel } from "./log-level.js";

/** Throws a ConfigError naming the allowed values when BATON_LOG_LEVEL is not one of them. */
export function createLogger(env: NodeJS.ProcessEnv, name = "baton"): Logger {
  const level = readLogLevel(env);
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

// pino logging to stderr, quiet unless BATON_LOG_LEVEL says otherwise. Loaded only by commands that log.
import { type Logger, pino } from "pino";

const LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

export function createLogger(env: NodeJS.ProcessEnv, name = "baton"): Logger {
  const requested = env.BATON_LOG_LEVEL?.toLowerCase();
  const level = requested && LEVELS.has(requested) ? requested : "silent";
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

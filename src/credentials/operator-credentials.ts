// The operator's credentials: variables an operator's shell holds to run `baton serve`, `baton proxy` and `baton
// admin`. Repository code (the startup runner's script and readiness checks, Dockerfile RUN steps) never receives
// them, and no box's environment holds one. The one list: the runner bundle includes this dependency-free module.

export const OPERATOR_CREDENTIALS = [
  "BATON_ADMIN_TOKEN",
  "BATON_PROXY_TOKEN",
  "BATON_MATCHER_TOKEN",
] as const;

const NAMES: ReadonlySet<string> = new Set(OPERATOR_CREDENTIALS);

export function isOperatorCredential(name: string): boolean {
  return NAMES.has(name);
}

/** `env` without any operator credential (a copy; unset values are dropped too). */
export function withoutOperatorCredentials(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !NAMES.has(name)) out[name] = value;
  }
  return out;
}

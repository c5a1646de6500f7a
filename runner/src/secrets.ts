// The runner's known values: read the environment file (its header names the overlay's secret variables) and
// take their values from this process's environment, which the agent sourced; see src/evidence/known-secrets.ts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { knownSecretsFrom } from "../../src/evidence/known-secrets.js";
import type { KnownSecret } from "../../src/evidence/sanitiser.js";
import { batonHome } from "./handoff.js";

export function collectKnownSecrets(env: NodeJS.ProcessEnv): KnownSecret[] {
  let text: string | null = null;
  try {
    text = readFileSync(join(batonHome(env), "environment.sh"), "utf8");
  } catch {
    // No environment file: only the transport credentials and the patterns apply.
  }
  return knownSecretsFrom(text, env);
}

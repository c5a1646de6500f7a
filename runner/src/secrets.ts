// The runner's known values: read the environment file (its header names the overlay's secret variables) and
// take their values from this process's environment, which the agent sourced; see src/evidence/known-secrets.ts.
import { readEnvironmentFile } from "../../src/envfile/read-environment.js";
import { knownSecretsFrom } from "../../src/evidence/known-secrets.js";
import type { KnownSecret } from "../../src/evidence/sanitiser.js";
import { batonHome } from "./handoff.js";

/** No environment file: only the transport credentials and the patterns apply. A link or FIFO is refused. */
export function collectKnownSecrets(env: NodeJS.ProcessEnv): KnownSecret[] {
  return knownSecretsFrom(readEnvironmentFile(batonHome(env)), env);
}

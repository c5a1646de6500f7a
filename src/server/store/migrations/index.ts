// The ordered list of schema migrations. Append a new one at the end with the next version number; never edit
// or reorder a migration that has shipped (a database records which versions it has applied).
import type { SecretBox } from "../../primitives/secret-box.js";
import type { Engine, Transaction } from "../store.js";
import { initialSchema } from "./0001-initial.js";
import { capabilityRequestsSchema } from "./0020-capability-requests.js";
import { environmentVersionBatonPaths } from "./0021-environment-version-baton-paths.js";
import { seedItemsSchema } from "./0022-seed-items.js";
import { secretValuesSealed } from "./0040-secret-values-sealed.js";
import { proxyRefusalsSchema } from "./0041-proxy-refusals.js";
import { sandboxBoxesSchema } from "./0050-sandbox-boxes.js";
import { usersTokensPlans } from "./0060-users-tokens-plans.js";
import { tasksSchema } from "./0061-tasks.js";
import { ticketsAndAgent } from "./0062-tickets-agent.js";
import { oneTaskPerTicket } from "./0063-one-task-per-ticket.js";
import { oauthSignIn } from "./0070-oauth-sign-in.js";
import { codehostTracker } from "./0080-codehost-tracker.js";
import { webhooks } from "./0083-webhooks.js";
import { leases } from "./0090-leases.js";
import { rateHits } from "./0091-rate-hits.js";
import { processedOnce } from "./0092-processed-once.js";
import { turnActivity } from "./0093-turn-activity.js";
import { pullRequestBody } from "./0094-pull-request-body.js";
import { workspaceAgent } from "./0095-workspace-agent.js";
import { signInBinding } from "./0096-sign-in-binding.js";
import { instanceRequests } from "./0099-instance-requests.js";
import { credentialFailures } from "./0100-credential-failures.js";

/** What a migration may need beyond the database: the operator's secret key (for sealing secret values). */
export interface MigrationContext {
  secretBox?: SecretBox | undefined;
}

/**
 * What a migration runs in: its own transaction on either engine. `exec` runs a script of several statements
 * written in the SQLite dialect (translated for PostgreSQL by ./ddl.ts); branch on `engine` only where the
 * translation cannot work, and say why.
 */
export interface MigrationRun extends Transaction {
  readonly engine: Engine;
  exec(script: string): Promise<void>;
}

export interface Migration {
  version: number;
  name: string;
  up(m: MigrationRun, context: MigrationContext): Promise<void>;
}

export const MIGRATIONS: readonly Migration[] = [
  initialSchema,
  capabilityRequestsSchema,
  environmentVersionBatonPaths,
  seedItemsSchema,
  secretValuesSealed,
  proxyRefusalsSchema,
  usersTokensPlans,
  tasksSchema,
  ticketsAndAgent,
  sandboxBoxesSchema,
  oneTaskPerTicket,
  oauthSignIn,
  codehostTracker,
  webhooks,
  leases,
  rateHits,
  processedOnce,
  turnActivity,
  pullRequestBody,
  workspaceAgent,
  signInBinding,
  instanceRequests,
  credentialFailures,
];

// The ordered list of schema migrations. Append a new one at the end with the next version number; never edit
// or reorder a migration that has shipped (a database records which versions it has applied).
import type { Database } from "../sqlite.js";
import { initialSchema } from "./0001-initial.js";
import { capabilityRequestsSchema } from "./0020-capability-requests.js";
import { environmentVersionBatonPaths } from "./0021-environment-version-baton-paths.js";
import { seedItemsSchema } from "./0022-seed-items.js";
import { usersTokensPlans } from "./0060-users-tokens-plans.js";
import { tasksSchema } from "./0061-tasks.js";
import { ticketsAndAgent } from "./0062-tickets-agent.js";

export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}

export const MIGRATIONS: readonly Migration[] = [
  initialSchema,
  capabilityRequestsSchema,
  environmentVersionBatonPaths,
  seedItemsSchema,
  usersTokensPlans,
  tasksSchema,
  ticketsAndAgent,
];

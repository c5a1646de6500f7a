// Who this `baton serve` process is among the instances sharing one store: a random id per process (a restart
// is a new instance) and the machine it runs on. What an instance claims (operations, turns, deliveries, outbox
// items) and the sandboxes it runs are recorded under its id; the machine says which instance may adopt a
// dead one's boxes (only one whose driver reaches them).
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

export interface InstanceIdentity {
  /** Unique per process: `<machine>/<12 hex>`, readable in logs and rows. */
  id: string;
  /** The machine's host name (BATON_MACHINE overrides it, e.g. for two test "machines" on one host). */
  machine: string;
}

export function newInstanceIdentity(env: NodeJS.ProcessEnv = process.env): InstanceIdentity {
  const machine = env.BATON_MACHINE?.trim() || hostname();
  return { id: `${machine}/${randomBytes(6).toString("hex")}`, machine };
}

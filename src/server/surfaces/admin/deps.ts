// The dependencies the admin API takes from the composition (serve.ts, app.ts).
import type { Logger } from "pino";
import type { InstanceRelay } from "../../adapters/instances/relay.js";
import type { SandboxManager } from "../../adapters/sandboxes/manager.js";
import type { TaskService } from "../../domain/tasks/service.js";
import type { InstanceIdentity } from "../../primitives/instance.js";
import type { SecretBox } from "../../primitives/secret-box.js";
import type { Store } from "../../store/store.js";

/** What the admin API uses of the service: nothing more (composition hands over the whole set). */
export interface AdminDeps {
  db: Store;
  now: () => Date;
  logger: Logger;
  /** When unset the admin API answers 404 as if it did not exist. */
  adminToken: string | undefined;
  /** The task engine: operations of the public API, the turn runtime, the rate limiter. */
  tasks: TaskService;
  /** Seals secret values (seed, secrets PUT); the proxy's internal route opens them. */
  secretBox: SecretBox;
  /** The egress proxy's URL given to sandboxes as BATON_PROXY_URL (`--proxy-url`). */
  proxyUrl?: string | undefined;
  /** The sandbox listener's URL once it listens (BATON_OPS_URL of a sandbox without a driver). */
  opsUrl?: (() => string | undefined) | undefined;
  /** The sandbox manager once `baton serve --sandbox-driver docker|namespace` has made it (after listening, since
   * boxes reach the service's own address); unset or empty with `--sandbox-driver none`. */
  sandboxes?: { current?: SandboxManager | undefined };
  /** This instance, and how it reaches the one running a turn or a box (several instances on PostgreSQL). */
  instance: InstanceIdentity;
  relay?: InstanceRelay | undefined;
}

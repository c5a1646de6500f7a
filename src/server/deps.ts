// Everything the composition (serve.ts, app.ts) holds for the surfaces and the domain: the store, the clock, the
// logger, the operation machinery. Only the composition takes it whole; each surface declares the part it uses
// (surfaces/<name>/deps.ts) and each domain function its own, and the composition hands this set to them.
import type { Logger } from "pino";
import type { TrustedProxies } from "../throttle/client-address.js";
import type { CodehostAppApi } from "./adapters/codehost/app-api.js";
import type { InstanceRelay } from "./adapters/instances/relay.js";
import type { IntegrationSettings } from "./adapters/integrations/settings.js";
import type { SandboxManager } from "./adapters/sandboxes/manager.js";
import type { CapabilitySettings } from "./domain/capability/settings.js";
import type { OperationWaiters } from "./domain/operations/waiters.js";
import type { OperationWorker } from "./domain/operations/worker.js";
import type { TaskService } from "./domain/tasks/service.js";
import type { InstanceIdentity } from "./primitives/instance.js";
import type { SecretBox } from "./primitives/secret-box.js";
import type { Store } from "./store/store.js";
import type { RegistrationLimits } from "./surfaces/oauth/registration-limits.js";

export interface ServerDeps {
  db: Store;
  /** This process among the instances sharing the store (claims and boxes are recorded under its id). */
  instance: InstanceIdentity;
  /** Reaches the instance that owns a box or runs a turn (PostgreSQL only: SQLite has one instance). */
  relay?: InstanceRelay | undefined;
  /** How long a claim on a queued item (webhook delivery, issue reply, e-mail) lasts unless renewed. */
  queueLeaseMs?: number | undefined;
  now: () => Date;
  logger: Logger;
  worker: OperationWorker;
  waiters: OperationWaiters;
  /** When unset the admin API answers 404 as if it did not exist. */
  adminToken: string | undefined;
  /** Capability-request settings (`--smtp-url`, `--matcher-url`, `--dashboard-url`). */
  capability?: CapabilitySettings | undefined;
  /** The task engine: operations of the public API, the turn runtime, the rate limiter. */
  tasks: TaskService;
  /** Seals secret values (seed, secrets PUT); the proxy's internal route opens them. */
  secretBox: SecretBox;
  /** The real code host's and tracker's settings (App, OAuth application, webhook secrets, triggers). */
  integrations: IntegrationSettings;
  /** The code-host App's API when one is configured (install callback, installation tokens); unset: local. */
  codehostApp?: CodehostAppApi | undefined;
  /** BATON_PROXY_TOKEN: enables the egress proxy's internal routes; unset, they answer 404. */
  proxyToken?: string | undefined;
  /** The egress proxy's URL given to sandboxes as BATON_PROXY_URL (`--proxy-url`). */
  proxyUrl?: string | undefined;
  /** `--trusted-proxy`: the public listener's fronts, whose X-Forwarded-For names the client (none: ignored). */
  trustedProxies?: TrustedProxies | undefined;
  /** The sandbox listener's URL once it listens (BATON_OPS_URL of a sandbox without a driver). */
  opsUrl?: (() => string | undefined) | undefined;
  /** The webhook queue's worker: the receivers wake it after queueing a delivery. */
  webhooks?: { wake(): void } | undefined;
  /** Registers work to finish when the service stops (e.g. the e-mail delivery worker). */
  onStop?: (stop: () => Promise<void>) => void;
  /** The sandbox manager once `baton serve --sandbox-driver docker|namespace` has made it (after listening, since
   * boxes reach the service's own address); unset or empty with `--sandbox-driver none`. */
  sandboxes?: { current?: SandboxManager | undefined };
  /** Test seam: how the authorization server fetches client documents (Client ID Metadata Documents,
   * sector_identifier_uri). Unset, the guarded fetch (guarded-fetch.ts), which never connects to a private,
   * loopback, link-local or metadata address; tests pass one that opens their own loopback document server's port. */
  oauthFetch?: typeof fetch | undefined;
  /** Dynamic client registration's bounds (`--oauth-max-clients`; tests lower them). */
  oauthRegistrationLimits?: RegistrationLimits | undefined;
}

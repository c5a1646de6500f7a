// The dependencies the authorization server takes from the composition (serve.ts, app.ts).
import type { Logger } from "pino";
import type { CapabilitySettings } from "../../domain/capability/settings.js";
import type { RateLimiter } from "../../domain/limits/rate-limiter.js";
import type { SecretBox } from "../../primitives/secret-box.js";
import type { Store } from "../../store/store.js";
import type { RegistrationLimits } from "./registration-limits.js";

/** What the authorization server uses of the service: nothing more (composition hands over the whole set). */
export interface OAuthDeps {
  db: Store;
  now: () => Date;
  logger: Logger;
  /** Capability-request settings (`--smtp-url`, `--matcher-url`, `--dashboard-url`). */
  capability?: CapabilitySettings | undefined;
  /** Seals secret values (seed, secrets PUT); the proxy's internal route opens them. */
  secretBox: SecretBox;
  /** Test seam: how the authorization server fetches client documents (Client ID Metadata Documents,
   * sector_identifier_uri). Unset, the guarded fetch (guarded-fetch.ts), which never connects to a private,
   * loopback, link-local or metadata address; tests pass one that opens their own loopback document server's port. */
  oauthFetch?: typeof fetch | undefined;
  /** The shared rate limiter (per source registrations; on PostgreSQL counted across instances). */
  tasks: { limiter: RateLimiter };
  /** Dynamic registration's bounds (`--oauth-max-clients`); default DEFAULT_REGISTRATION_LIMITS. */
  oauthRegistrationLimits?: RegistrationLimits | undefined;
}

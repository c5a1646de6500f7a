// What the capability routes share: the matcher, its budget, the dashboard base, and the e-mail delivery worker
// (started here when `--smtp-url` is set, stopped with the service).

import type { Logger } from "pino";
import type { InstanceIdentity } from "../../primitives/instance.js";
import type { SecretBox } from "../../primitives/secret-box.js";
import type { Store } from "../../store/store.js";
import { createSmtpSender, type DeliveryWorker, startDeliveryWorker } from "./mailer.js";
import type { CapabilityRuntime } from "./runtime.js";
import type { CapabilitySettings } from "./settings.js";
import { budgetFor, dashboardBaseFor, matcherFor } from "./settings.js";

/** What the capability runtime (e-mail outbox, matcher) uses of the service: nothing more (composition hands over the whole set). */
export interface CapabilityRuntimeDeps {
  db: Store;
  /** This process among the instances sharing the store (claims and boxes are recorded under its id). */
  instance: InstanceIdentity;
  /** How long a claim on a queued item (webhook delivery, issue reply, e-mail) lasts unless renewed. */
  queueLeaseMs?: number | undefined;
  now: () => Date;
  logger: Logger;
  /** Capability-request settings (`--smtp-url`, `--matcher-url`, `--dashboard-url`). */
  capability?: CapabilitySettings | undefined;
  /** Seals secret values (seed, secrets PUT); the proxy's internal route opens them. */
  secretBox: SecretBox;
  /** Registers work to finish when the service stops (e.g. the e-mail delivery worker). */
  onStop?: (stop: () => Promise<void>) => void;
}

export function startCapabilityRuntime(deps: CapabilityRuntimeDeps): CapabilityRuntime {
  const mail = startMail(deps);
  mail.catch((error: unknown) =>
    deps.logger.error({ err: String(error) }, "e-mail delivery could not start"),
  );
  deps.onStop?.(async () => {
    await (await mail.catch(() => null))?.stop();
  });
  return {
    db: deps.db,
    now: deps.now,
    logger: deps.logger,
    matcher: matcherFor(deps.capability),
    matcherBudgetMs: budgetFor(deps.capability),
    dashboardBase: () => dashboardBaseFor(deps.capability),
    kickMail: () => {
      void mail.then((worker) => worker?.kick()).catch(() => {});
    },
    secretBox: deps.secretBox,
  };
}

function startMail(deps: CapabilityRuntimeDeps): Promise<DeliveryWorker | null> {
  const settings = deps.capability;
  if (!settings?.smtpUrl) return Promise.resolve(null);
  return createSmtpSender(settings.smtpUrl, settings.smtpFrom ?? "Baton <baton@localhost>").then((sender) =>
    startDeliveryWorker({
      db: deps.db,
      sender,
      logger: deps.logger,
      now: deps.now,
      owner: deps.instance.id,
      leaseMs: deps.queueLeaseMs,
    }),
  );
}

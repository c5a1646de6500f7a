// What the capability routes share: the matcher, its budget, the dashboard base, and the e-mail delivery worker
// (started here when `--smtp-url` is set, stopped with the service).
import type { ServerDeps } from "../../deps.js";
import { createSmtpSender, type DeliveryWorker, startDeliveryWorker } from "./mailer.js";
import type { CapabilityRuntime } from "./runtime.js";
import { budgetFor, dashboardBaseFor, matcherFor } from "./settings.js";

export function startCapabilityRuntime(deps: ServerDeps): CapabilityRuntime {
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

function startMail(deps: ServerDeps): Promise<DeliveryWorker | null> {
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

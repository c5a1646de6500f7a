// The capability runtime the pages hand to manage.ts: the same store, clock and secret box as the member routes'
// runtime. The pages start no e-mail worker of their own: the service's worker polls its outbox, so `kickMail`
// only makes delivery a little later. (The lead may pass the service's runtime instead: one argument.)
import type { CapabilityRuntime } from "../../capability/runtime.js";
import { budgetFor, dashboardBaseFor, matcherFor } from "../../capability/settings.js";
import type { ServerDeps } from "../../deps.js";

export function capabilityRuntimeOf(deps: ServerDeps): CapabilityRuntime {
  return {
    db: deps.db,
    now: deps.now,
    logger: deps.logger,
    matcher: matcherFor(deps.capability),
    matcherBudgetMs: budgetFor(deps.capability),
    dashboardBase: () => dashboardBaseFor(deps.capability),
    kickMail: () => {},
    secretBox: deps.secretBox,
  };
}

// `baton serve` settings for capability requests: SMTP for e-mail, the model-endpoint matcher, the dashboard.
import { createHttpMatcher } from "../../../capability/http-matcher.js";
import { builtinMatcher, type CapabilityMatcher, MATCHER_BUDGET_MS } from "../../../capability/matcher.js";

export interface CapabilitySettings {
  /** `smtp://host:port` (or smtps://, with user:pass if the relay needs it). Without it e-mail stays queued. */
  smtpUrl?: string | undefined;
  smtpFrom?: string | undefined;
  /** A model endpoint answering {requestId, confidence}; without it the built-in deterministic matcher runs. */
  matcherUrl?: string | undefined;
  /** Bearer credential for the matcher endpoint (env BATON_MATCHER_TOKEN); missing means "never merge". */
  matcherToken?: string | undefined;
  matcherBudgetMs?: number | undefined;
  /** Base of the dashboard links in e-mail; defaults to the service's own URL once it listens. */
  dashboardUrl?: string | undefined;
  serviceUrl?: string | undefined;
  /**
   * Without `smtpUrl`, on a service whose every listener is on loopback: where each sign-in link is printed
   * instead of e-mailed (one line each on `baton serve`'s stderr), so a laptop reaches its dashboard with no
   * mail server. Unset off loopback: sign-in by e-mail stays refused there.
   */
  printSignInLink?: ((line: string) => void) | undefined;
}

export function matcherFor(settings: CapabilitySettings | undefined): CapabilityMatcher {
  if (!settings?.matcherUrl) return builtinMatcher;
  return createHttpMatcher({ url: settings.matcherUrl, token: settings.matcherToken });
}

export const budgetFor = (settings: CapabilitySettings | undefined): number =>
  settings?.matcherBudgetMs ?? MATCHER_BUDGET_MS;

export function dashboardBaseFor(settings: CapabilitySettings | undefined): string {
  return settings?.dashboardUrl ?? `${settings?.serviceUrl ?? "http://127.0.0.1"}/dashboard`;
}

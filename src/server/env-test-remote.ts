// `baton env test <checkout> --serve <admin-url> --workspace <id>` (src/cli/commands/env/test.ts prints): the same
// test as env-test.ts, in a box of a named, long-lived `baton serve` (its pool hands out a ready box when it has
// one) instead of a throwaway service: lint `.batonrc.json` here, ask the service's admin API for a box with the
// checkout, run `baton env rehearse` in it through the admin exec, and always delete the box afterwards. The
// repository's environment is the one that service holds for the workspace (its seed and settings).
import { randomBytes } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import {
  type AdminSandbox,
  type AdminTarget,
  execInAdminSandbox,
  provisionAdminSandbox,
  removeAdminSandbox,
} from "../client/admin-client.js";
import { readRehearsalOutput } from "../envtest/rehearsal-reader.js";
import { lastLine, REHEARSAL_STEPS } from "../envtest/rehearsal-wire.js";
import { BatonError, InputError, ServiceError } from "../errors.js";
import { checkoutPathInBox, type DriverName } from "./adapters/sandboxes/driver.js";
import { explainRefusal } from "./env-test-remote-errors.js";
import {
  type EnvTestResult,
  type EnvTestStep,
  lintCheckout,
  recordRehearsal,
  stepRunner,
} from "./env-test-result.js";

export interface RemoteEnvTestOptions {
  checkout: string;
  repository: string;
  /** The service's admin listener (its `adminUrl`); BATON_ADMIN_TOKEN in `env` is its admin token. */
  serve: string;
  workspace: string;
  timeoutSeconds: number;
  env: NodeJS.ProcessEnv;
  /** Ctrl-C: stops waiting; the box is deleted all the same. */
  signal?: AbortSignal | undefined;
  /** Called as each host step starts, and once as the rehearsal in the box starts. */
  onStep?: (name: string) => void;
  /** Each rehearsed step once the service has answered (its exec answers only when all have ended). */
  onRehearsed?: (step: EnvTestStep) => void;
}

/** The four steps share one exec: each its own time limit, plus a minute for the rehearsal's own start. */
export function execTimeoutSeconds(stepSeconds: number): number {
  return Math.min(24 * 60 * 60, REHEARSAL_STEPS.length * stepSeconds + 60);
}

export async function runRemoteEnvTest(options: RemoteEnvTestOptions): Promise<EnvTestResult> {
  const started = performance.now();
  const checkout = resolve(options.checkout);
  if (!existsSync(checkout))
    throw new InputError(`${options.checkout} does not exist; give the checkout's folder`);
  const target: AdminTarget = { url: options.serve, env: options.env, urlFlag: "--serve" };
  const result: EnvTestResult = {
    ok: false,
    repository: options.repository,
    // The service's answer names its driver and image once the box exists.
    driver: "docker",
    image: null,
    egress: { proxy: "none", address: null },
    steps: [],
    batonrcProblems: [],
    evidence: null,
    disclosure: null,
    durationMs: 0,
  };
  const step = stepRunner(result, options.onStep);
  const finish = () => {
    result.durationMs = Math.round(performance.now() - started);
    return result;
  };
  const lint = await step("lint", () => lintCheckout(result, checkout));
  if (!lint.ok) return finish();

  // A fresh engagement each run: a box is never reused, and the service's own engagements are untouched.
  const owner = { workspace: options.workspace, engagement: `env-test-${randomBytes(6).toString("hex")}` };
  // The service reads the checkout from its own disk, under its --checkout-root: the path links resolved.
  const realCheckout = realpathSync(checkout);
  let sandbox: AdminSandbox | undefined;
  let failure: { error: unknown } | undefined;
  try {
    await step("provision", async () => {
      // Not stopped by Ctrl-C: a box the service makes after we stopped waiting would be left behind; the
      // interruption is taken once its id is known, and the box deleted.
      sandbox = await provisionAdminSandbox(target, {
        ...owner,
        repository: options.repository,
        checkout: realCheckout,
      }).catch((error: unknown) => {
        throw explainRefusal(error, { ...options, checkout: realCheckout });
      });
      result.driver = (sandbox.sandbox?.driver ?? result.driver) as DriverName;
      result.image = sandbox.sandbox?.image ?? null;
      const proxyUrl = sandbox.env.BATON_PROXY_URL;
      result.egress = proxyUrl
        ? { proxy: "service", address: new URL(proxyUrl).host }
        : { proxy: "none", address: null };
      return { ok: true };
    });
    const box = sandbox!;
    options.signal?.throwIfAborted();
    options.onStep?.("rehearse");
    const t0 = performance.now();
    const ran = await execInAdminSandbox(
      target,
      {
        sandboxId: box.sandboxId,
        ...owner,
        command: [
          "baton",
          "env",
          "rehearse",
          options.repository,
          "--timeout",
          String(options.timeoutSeconds),
        ],
        cwd: checkoutPathInBox(options.repository),
        timeoutSeconds: execTimeoutSeconds(options.timeoutSeconds),
        // Nothing to flush before the disclosure (the service's proxy reports refusals on its own): go on at once.
        stdin: "\n",
      },
      options.signal,
    );
    const reader = readRehearsalOutput(ran.stdout);
    const spent = reader.outcomes.reduce((sum, outcome) => sum + outcome.durationMs, 0);
    const outcomes = reader.finish(
      () =>
        ran.timedOut
          ? `stopped after ${execTimeoutSeconds(options.timeoutSeconds)} s (the exec's time limit)`
          : `baton env rehearse ended (exit ${ran.exitCode}) during ${reader.current}: ${lastLine(ran.stderr)}`,
      performance.now() - t0 - spent,
    );
    // The client in the box says "the workspace has no repository <name> (404 …)": not the checkout's fault.
    const unknown = outcomes.find(
      (outcome) =>
        outcome.step === "activate" &&
        !outcome.ok &&
        outcome.detail?.includes(`no repository ${options.repository} `),
    );
    if (unknown)
      throw new BatonError(
        "not_found",
        `${options.repository} is not a repository of workspace ${options.workspace} on ${options.serve}; with --serve the environment is the one that service holds (its seed and settings): add the repository there, or name one it has with --repository`,
      );
    recordRehearsal(result, outcomes);
    for (const rehearsed of result.steps.slice(-outcomes.length)) options.onRehearsed?.(rehearsed);
  } catch (error) {
    failure = { error };
  }
  // Always deleted, also after a failure or Ctrl-C: a box is never handed back to the pool or kept.
  const made = sandbox;
  const left = made
    ? await removeAdminSandbox(target, { sandboxId: made.sandboxId, ...owner }).then(
        () => undefined,
        (error: unknown) =>
          `sandbox ${made.sandboxId} could not be deleted (${(error as Error).message}); delete it with DELETE /admin/v1/sandboxes/${made.sandboxId}?workspaceId=${owner.workspace}&engagementId=${owner.engagement}`,
      )
    : undefined;
  if (failure && options.signal?.aborted)
    throw new BatonError(
      "step_failed",
      `interrupted; ${left ?? (made ? "the box was deleted" : "no box was made")}`,
      {
        cause: failure.error,
      },
    );
  // What went wrong first is the news; a box left behind is reported when all else went well.
  if (failure) throw failure.error;
  if (left) throw new ServiceError("service_error", `the test ran, but ${left}`);
  return finish();
}

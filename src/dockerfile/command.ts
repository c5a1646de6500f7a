// `baton dockerfile plan|apply <owner/name>`: locate the Dockerfile, plan it, and for apply run it and persist
// its ENV. Returns the outcome with the sanitiser every string must pass before it leaves (src/cli prints).
import { resolveSandboxPaths } from "../config/sandbox.js";
import { parseEnvironmentHeader, RepositorySlugSchema, readEnvironmentFile } from "../envfile/index.js";
import { UsageError } from "../errors.js";
import { type ApplyResult, applyPlan } from "./apply.js";
import { acquireApplyLock } from "./lock.js";
import { type PersistResult, persistDockerfileEnvironment } from "./persist.js";
import { planDockerfile } from "./plan.js";
import { createOutputSanitiser, type OutputSanitiser } from "./sanitise.js";
import { collectSecrets } from "./secrets.js";
import { locateDockerfile, readDockerfileText } from "./source.js";
import type { DockerfilePlan, PlanStep, StepRecord } from "./types.js";

export interface DockerfileCommandInput {
  mode: "plan" | "apply";
  repository: string;
  file?: string | undefined;
  checkout?: string | undefined;
  target?: string | undefined;
  buildArgs: readonly string[];
  stepTimeoutSeconds?: number | undefined;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Called after each applied step with its record (already sanitised) and the number of steps. */
  onStep?: (record: StepRecord, step: PlanStep, total: number) => void;
}

export interface DockerfileHeader {
  repository: string;
  versionId: string;
  dockerfile: string;
  checkout: string;
  target: string;
}

export type DockerfileOutcome =
  | { mode: "plan"; header: DockerfileHeader; plan: DockerfilePlan; sanitiser: OutputSanitiser }
  /** The handoff says an older worker applied it: nothing was run. */
  | { mode: "reported_applied"; header: DockerfileHeader; sanitiser: OutputSanitiser }
  | {
      mode: "apply";
      header: DockerfileHeader;
      result: ApplyResult;
      /** Null when a step failed (ENV is persisted only after a full apply). */
      environment: PersistResult | null;
      unusedBuildArgs: string[];
      sanitiser: OutputSanitiser;
    };

/** `baton dockerfile apply --json` (src/cli prints it; `baton/testing` returns it). */
export type DockerfileApplyDocument = DockerfileHeader &
  (
    | {
        status: ApplyResult["status"];
        failedStep: StepRecord | null;
        steps: StepRecord[];
        /** Null when a step failed (ENV is persisted only after a full apply). */
        environment: PersistResult | null;
        unusedBuildArgs: string[];
      }
    /** The handoff says an older worker applied it: nothing was run. */
    | { status: "reported_applied"; steps: []; environment: null }
  );

const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
export const DEFAULT_STEP_TIMEOUT_SECONDS = 1800;

export function parseBuildArgs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new UsageError("--build-arg takes NAME=value (the value may be empty: NAME=)");
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/** Deep copy with every string sanitised, for `--json` documents. */
export function sanitiseDeep<T>(value: T, sanitiser: OutputSanitiser): T {
  if (typeof value === "string") return sanitiser.sanitise(value).text as T;
  if (Array.isArray(value)) return value.map((item) => sanitiseDeep(item, sanitiser)) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        sanitiseDeep(key, sanitiser),
        sanitiseDeep(item, sanitiser),
      ]),
    ) as T;
  }
  return value;
}

/** A link or special file in place of environment.sh is refused; a missing or header-less one names none. */
function secretNamesFromEnvironmentFile(batonDir: string): string[] {
  const text = readEnvironmentFile(batonDir);
  if (text === null) return [];
  try {
    const manifest = parseEnvironmentHeader(text);
    return manifest.variables.filter((v) => v.source === "secret").map((v) => v.assigned);
  } catch {
    return [];
  }
}

export async function runDockerfileCommand(input: DockerfileCommandInput): Promise<DockerfileOutcome> {
  if (!RepositorySlugSchema.safeParse(input.repository).success) {
    throw new UsageError(`repository must be owner/name, e.g. acme/api`);
  }
  const timeoutSeconds = input.stepTimeoutSeconds ?? DEFAULT_STEP_TIMEOUT_SECONDS;
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    throw new UsageError("--step-timeout takes a number of seconds greater than 0, e.g. --step-timeout 600");
  }
  const buildArgs = parseBuildArgs(input.buildArgs);
  const paths = resolveSandboxPaths(input.env);
  const secretNames = secretNamesFromEnvironmentFile(paths.batonDir);
  const sanitiser = createOutputSanitiser(collectSecrets({ env: input.env, secretNames, buildArgs }));
  const source = await locateDockerfile({ paths, ...input });
  const text = await readDockerfileText(source.dockerfilePath);
  const plan = planDockerfile(text, {
    ...(input.target !== undefined ? { target: input.target } : {}),
    buildArgs,
    baseEnv: { PATH: input.env.PATH || DEFAULT_PATH },
  });
  const header: DockerfileHeader = {
    repository: input.repository,
    versionId: source.versionId,
    dockerfile: source.dockerfilePath,
    checkout: source.checkoutPath,
    target: plan.target,
  };
  if (input.mode === "plan") return { mode: "plan", header, plan, sanitiser };
  if (source.reportedApplied) return { mode: "reported_applied", header, sanitiser };
  const release = await acquireApplyLock(paths, input.repository);
  try {
    const result = await applyPlan({
      plan,
      repository: input.repository,
      versionId: source.versionId,
      checkoutPath: source.checkoutPath,
      paths,
      env: input.env,
      stepTimeoutMs: timeoutSeconds * 1000,
      sanitiser,
      onStep: (record, step) => input.onStep?.(record, step, plan.steps.length),
    });
    const environment =
      result.status === "failed"
        ? null
        : await persistDockerfileEnvironment({
            paths,
            repository: input.repository,
            variables: plan.environment,
          });
    return { mode: "apply", header, result, environment, unusedBuildArgs: plan.unusedBuildArgs, sanitiser };
  } finally {
    await release();
  }
}

// `baton dockerfile plan|apply <owner/name>`: locate the Dockerfile, plan it, and for apply run it, persist
// its ENV and print the step records. Every string that leaves here has been through the sanitiser.
import { EXIT, type ExitCode } from "../cli/exit-codes.js";
import { type CliIo, writeJson, writeLine } from "../cli/io.js";
import { resolveSandboxPaths } from "../config/sandbox.js";
import { parseEnvironmentHeader, RepositorySlugSchema, readEnvironmentFile } from "../envfile/index.js";
import { UsageError } from "../errors.js";
import { applyPlan } from "./apply.js";
import { acquireApplyLock } from "./lock.js";
import { persistDockerfileEnvironment } from "./persist.js";
import { planDockerfile } from "./plan.js";
import { renderApplySummary, renderPlan, renderStepLine } from "./render.js";
import { createOutputSanitiser, type OutputSanitiser } from "./sanitise.js";
import { collectSecrets } from "./secrets.js";
import { locateDockerfile, readDockerfileText } from "./source.js";

export interface DockerfileCommandOptions {
  mode: "plan" | "apply";
  repository: string;
  file?: string | undefined;
  checkout?: string | undefined;
  target?: string | undefined;
  buildArgs: readonly string[];
  stepTimeoutSeconds?: number | undefined;
  json: boolean;
  io: CliIo;
}

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

export async function runDockerfileCommand(options: DockerfileCommandOptions): Promise<ExitCode> {
  const { io } = options;
  if (!RepositorySlugSchema.safeParse(options.repository).success) {
    throw new UsageError(`repository must be owner/name, e.g. acme/api`);
  }
  const timeoutSeconds = options.stepTimeoutSeconds ?? DEFAULT_STEP_TIMEOUT_SECONDS;
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
    throw new UsageError("--step-timeout takes a positive number of seconds");
  }
  const buildArgs = parseBuildArgs(options.buildArgs);
  const paths = resolveSandboxPaths(io.env);
  const secretNames = secretNamesFromEnvironmentFile(paths.batonDir);
  const sanitiser = createOutputSanitiser(collectSecrets({ env: io.env, secretNames, buildArgs }));
  const source = await locateDockerfile({ paths, ...options, cwd: io.cwd, env: io.env });
  const text = await readDockerfileText(source.dockerfilePath);
  const plan = planDockerfile(text, {
    ...(options.target !== undefined ? { target: options.target } : {}),
    buildArgs,
    baseEnv: { PATH: io.env.PATH || DEFAULT_PATH },
  });
  const header = {
    repository: options.repository,
    versionId: source.versionId,
    dockerfile: source.dockerfilePath,
    checkout: source.checkoutPath,
    target: plan.target,
  };
  if (options.mode === "plan") {
    if (options.json) writeJson(io.stdout, sanitiseDeep({ ...header, plan }, sanitiser));
    else for (const line of renderPlan(header, plan)) writeLine(io.stdout, sanitiser.sanitise(line).text);
    return EXIT.ok;
  }
  if (source.reportedApplied) {
    if (options.json)
      writeJson(io.stdout, { ...header, status: "reported_applied", steps: [], environment: null });
    else {
      writeLine(
        io.stdout,
        `The handoff for ${options.repository} reports its Dockerfile applied; nothing was run.`,
      );
      writeLine(io.stdout, `To apply it anyway: baton dockerfile apply ${options.repository} --file <path>`);
    }
    return EXIT.ok;
  }
  const release = await acquireApplyLock(paths, options.repository);
  let result: Awaited<ReturnType<typeof applyPlan>>;
  let environment: Awaited<ReturnType<typeof persistDockerfileEnvironment>> | null;
  try {
    result = await applyPlan({
      plan,
      repository: options.repository,
      versionId: source.versionId,
      checkoutPath: source.checkoutPath,
      paths,
      env: io.env,
      stepTimeoutMs: timeoutSeconds * 1000,
      sanitiser,
      onStep: (record, step) => writeLine(io.stderr, renderStepLine(record, step, plan.steps.length)),
    });
    environment =
      result.status === "failed"
        ? null
        : await persistDockerfileEnvironment({
            paths,
            repository: options.repository,
            variables: plan.environment,
          });
  } finally {
    await release();
  }
  if (options.json) {
    const document = {
      ...header,
      status: result.status,
      failedStep: result.failed,
      steps: result.records,
      environment,
      unusedBuildArgs: plan.unusedBuildArgs,
    };
    writeJson(io.stdout, sanitiseDeep(document, sanitiser));
  } else {
    for (const line of renderApplySummary(options.repository, result, environment, plan.unusedBuildArgs)) {
      writeLine(io.stdout, sanitiser.sanitise(line).text);
    }
  }
  return result.status === "failed" ? EXIT.error : EXIT.ok;
}

// Command-line arguments of the runner: `node <runPath> [--handoff <file>] [--repo <owner/name>]`.

export interface RunnerArgs {
  handoff: string | undefined;
  repo: string | undefined;
}

export class RunnerUsageError extends Error {
  override readonly name = "RunnerUsageError";
}

const USAGE = "usage: node baton-runner.cjs [--handoff <file>] [--repo <owner/name>]";
const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

export function parseRunnerArgs(argv: readonly string[]): RunnerArgs {
  const args: RunnerArgs = { handoff: undefined, repo: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    if (flag !== "--handoff" && flag !== "--repo")
      throw new RunnerUsageError(`unknown argument ${arg}; ${USAGE}`);
    const value = inline ?? argv[++i];
    if (value === undefined || value === "") throw new RunnerUsageError(`${flag} needs a value; ${USAGE}`);
    if (flag === "--repo" && !REPO.test(value))
      throw new RunnerUsageError(`--repo must be owner/name; ${USAGE}`);
    if (flag === "--handoff") args.handoff = value;
    else args.repo = value;
  }
  return args;
}

// Command-line arguments of the runner: `node <runPath> [--repo <owner/name> | --handoff <file>] [--help]`.

export interface RunnerArgs {
  handoff: string | undefined;
  repo: string | undefined;
}

/** What the command line asks for: a run, the help text, or nothing (it is wrong: `message` says how). */
export type RunnerCommand =
  | { kind: "run"; args: RunnerArgs }
  | { kind: "help" }
  | { kind: "usage_error"; message: string };

export const USAGE_LINE = "usage: node baton-runner.cjs [--repo <owner/name> | --handoff <file>]";

export const HELP = `${USAGE_LINE}

Runs the startup script a saved handoff names (bash <script>, in the checkout, within its time limit), checks
readiness, and writes one JSON evidence document to stdout and to the handoff's evidencePath.

  --repo <owner/name>   use ~/.baton/handoffs/<owner>__<name>.json (default: the only saved handoff)
  --handoff <file>      use this saved handoff file
  -h, --help            print this and exit

Exit status: the script's own; 1 readiness not reached; 124 time limit; 125 the runner could not run the
script; 128 + n stopped by signal n. Source ~/.baton/environment.sh in the same shell first.
`;

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/** Reads the command line; never throws. */
export function readRunnerCommand(argv: readonly string[]): RunnerCommand {
  const args: RunnerArgs = { handoff: undefined, repo: undefined };
  const wrong = (message: string): RunnerCommand => ({ kind: "usage_error", message });
  // Asking for help wins over any mistake next to it.
  if (argv.some((arg) => arg === "-h" || arg === "--help")) return { kind: "help" };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    if (flag !== "--handoff" && flag !== "--repo") {
      return wrong(
        arg.startsWith("-")
          ? `unknown option ${arg}; the options are --repo, --handoff and --help`
          : `unexpected argument ${arg}; name the repository with --repo ${REPO.test(arg) ? arg : "<owner/name>"}`,
      );
    }
    const value = inline ?? argv[++i];
    if (value === undefined || value === "" || (inline === undefined && value.startsWith("-"))) {
      return wrong(
        `${flag} needs a value: ${flag === "--repo" ? "--repo <owner/name>" : "--handoff <file>"}`,
      );
    }
    if (flag === "--repo" && !REPO.test(value)) {
      return wrong(`--repo takes owner/name (e.g. --repo acme/api), not ${JSON.stringify(value)}`);
    }
    const current = flag === "--handoff" ? args.handoff : args.repo;
    if (current !== undefined && current !== value) return wrong(`${flag} is given twice`);
    if (flag === "--handoff") args.handoff = value;
    else args.repo = value;
  }
  return { kind: "run", args };
}

// The service's half of `open_pull_request`: in the agent's checkout of the task's repository, put what it left
// (committed or not) on the task's branch with a fixed author, and push it to the code host's URL (never a remote
// the checkout names). The agent's hooks and fsmonitor never run: the service's git, not the agent's.
import type { SandboxCommands } from "./run-in-sandbox.js";

/** `sh -c` script: $1 repository, $2 branch, $3 push URL, $4 commit message; prints the pushed commit. */
const PUSH_SCRIPT = `set -eu
dir="\${BATON_CHECKOUT_ROOT:-$HOME/checkouts}/$1"
if [ ! -e "$dir/.git" ]; then echo "there is no git checkout of $1 at $dir" >&2; exit 3; fi
g() { git -C "$dir" -c core.hooksPath=/dev/null -c core.fsmonitor=false -c commit.gpgSign=false "$@"; }
g checkout --quiet -B "$2"
g add --all
if ! g diff --cached --quiet --no-ext-diff --no-textconv; then g commit --quiet --no-verify -m "$4"; fi
g push --quiet --force "$3" "HEAD:refs/heads/$2"
g rev-parse HEAD`;

/** The author of the commit the service makes of uncommitted work. */
export const SERVICE_GIT_AUTHOR = { name: "Baton", email: "baton@baton.invalid" } as const;

export type PushOutcome = { ok: true; commit: string } | { ok: false; problem: string };

export async function pushTaskBranch(
  commands: SandboxCommands,
  input: {
    repo: string;
    branch: string;
    url: string;
    message: string;
    /** git's variables: the author, and the header for the URL where the service adds one. */
    env: Record<string, string>;
    signal: AbortSignal;
    timeoutMs: number;
  },
): Promise<PushOutcome> {
  const result = await commands.run(
    ["sh", "-c", PUSH_SCRIPT, "baton-push", input.repo, input.branch, input.url, input.message],
    { env: input.env, signal: input.signal, timeoutMs: input.timeoutMs },
  );
  if (result.exitCode !== 0) {
    const said = result.stderr.trim().split("\n").slice(-3).join(" ").slice(-500);
    return { ok: false, problem: said || `git exited ${result.exitCode}` };
  }
  return { ok: true, commit: result.stdout.trim().split("\n").at(-1) ?? "" };
}

// What an ACP turn in a box needs besides the agent: the task's checkout made before the agent's first turn
// (cloned from BATON_GIT_URL onto the task's branch; a later turn finds it and leaves it as the agent left it), and
// Baton's tool server run by the box's own baton with its turn-requests file in the agent's home there.
import { AGENT_TOOLS_LIMITS } from "../../../../agent-tools/index.js";
import type { SandboxBox } from "../port.js";

const CHECKOUT_TIMEOUT_MS = 120_000;
const FILE_TIMEOUT_MS = 15_000;

/** The box's own baton: the image's Node and the CLI of the baton layer (agents start MCP servers with their own
 * environments, so neither is looked up on PATH). */
export const BOX_BATON = {
  command: "/usr/local/bin/node",
  args: ["/opt/baton/dist/src/cli/bin.js"],
} as const;

export function boxRequestsFile(box: SandboxBox): string {
  return `${box.home}/.baton/turn-requests.jsonl`;
}

export type CheckoutOutcome = { ok: true } | { ok: false; reason: string };

/**
 * Clones the task's repository at `box.checkout` when it is not there yet and puts it on `branch` (made from the
 * default branch the first time). Needs BATON_GIT_URL among the turn's variables; without it, nothing is done.
 */
export async function prepareBoxCheckout(
  box: SandboxBox,
  env: Readonly<Record<string, string>>,
  branch: string,
  signal: AbortSignal,
): Promise<CheckoutOutcome> {
  if (!box.checkout || !env.BATON_GIT_URL) return { ok: true };
  const script = [
    "set -e",
    'if [ ! -d "$1/.git" ]; then mkdir -p "$(dirname "$1")"; git clone --quiet "$BATON_GIT_URL" "$1"; fi',
    'cd "$1"',
    'if [ "$(git rev-parse --abbrev-ref HEAD)" != "$2" ]; then',
    '  git checkout --quiet "$2" 2>/dev/null || git checkout --quiet -b "$2"',
    "fi",
  ].join("\n");
  const result = await box.exec(["sh", "-c", script, "checkout", box.checkout, branch], {
    env: { ...env },
    timeoutMs: CHECKOUT_TIMEOUT_MS,
    signal,
  });
  if (result.exitCode === 0) return { ok: true };
  return {
    ok: false,
    reason: `the task's checkout could not be made in the box (exit ${result.exitCode}): ${result.stderr.trim().slice(-300)}`,
  };
}

/** Empties the box's turn-requests file (only this turn's calls count), making its folder the first time. */
export async function resetBoxRequests(box: SandboxBox): Promise<void> {
  const result = await box.exec(
    ["sh", "-c", 'umask 077 && mkdir -p "$(dirname "$1")" && : > "$1"', "reset", boxRequestsFile(box)],
    { timeoutMs: FILE_TIMEOUT_MS },
  );
  if (result.exitCode !== 0)
    throw new Error(`cannot prepare the turn-requests file in the box: ${result.stderr.trim().slice(-300)}`);
}

/** The file's first bytes up to the tool server's own bound; missing is empty. */
export async function readBoxRequests(box: SandboxBox): Promise<string> {
  const result = await box.exec(
    ["sh", "-c", 'if [ -f "$1" ]; then head -c "$2" -- "$1"; fi', "read", boxRequestsFile(box)].concat(
      String(AGENT_TOOLS_LIMITS.fileBytes),
    ),
    { timeoutMs: FILE_TIMEOUT_MS },
  );
  return result.exitCode === 0 ? result.stdout : "";
}

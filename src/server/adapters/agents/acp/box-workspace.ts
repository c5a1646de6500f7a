// What an ACP turn in a box needs besides the agent, made in one exec before each start: the task's checkout (cloned
// from BATON_GIT_URL onto the task's branch the first time; a later turn finds it and leaves it as the agent left
// it), the turn-requests file of Baton's tool server (run by the box's own baton, the file in the agent's home),
// and a catalog agent's set-up.
import { AGENT_TOOLS_LIMITS } from "../../../../agent-tools/index.js";
import type { SandboxBox } from "../port.js";
import {
  BOX_AGENT_SETUP_SCRIPT,
  type BoxAgentReady,
  type BoxAgentSetup,
  boxAgentSetupInput,
  readBoxAgentSetupAnswer,
} from "./box-agent-setup.js";

/** The clone of the first turn is the longest part. */
const SETUP_TIMEOUT_MS = 120_000;
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

export type BoxTurnReady = BoxAgentReady;

/** Exit statuses of the turn's set-up script that say which step failed (the agent's set-up uses its own). */
const CHECKOUT_FAILED = 40;
const REQUESTS_FAILED = 41;

/**
 * Everything a turn needs in the box before the agent starts, in one exec (each `docker exec` costs 100 to 250 ms):
 * the task's checkout cloned at `box.checkout` when it is not there yet and put on `branch` (made from the default
 * branch the first time; needs BATON_GIT_URL among the turn's variables, else it is left alone), the box's
 * turn-requests file emptied (only this turn's calls count), and, for a catalog agent, its set-up
 * (box-agent-setup.ts: the key's placeholder checked, its files written, the proxy's CA fetched).
 */
export async function prepareBoxTurn(
  box: SandboxBox,
  env: Readonly<Record<string, string>>,
  branch: string,
  agent: BoxAgentSetup | undefined,
  signal: AbortSignal,
): Promise<BoxTurnReady> {
  // Chains of && and ||, not `set -e`: a shell ignores -e on the left of ||, which is where a step's failure is
  // turned into its exit status.
  const script = [
    'if [ -n "$1" ] && [ -n "$BATON_GIT_URL" ]; then',
    '  { [ -d "$1/.git" ] || { mkdir -p "$(dirname "$1")" && git clone --quiet "$BATON_GIT_URL" "$1" </dev/null; }; } &&',
    '  cd "$1" &&',
    '  { [ "$(git rev-parse --abbrev-ref HEAD)" = "$2" ] || git checkout --quiet "$2" 2>/dev/null </dev/null ||',
    '    git checkout --quiet -b "$2" </dev/null; } ||',
    `  exit ${CHECKOUT_FAILED}`,
    "fi",
    `( umask 077 && mkdir -p "$(dirname "$3")" && : > "$3" ) || exit ${REQUESTS_FAILED}`,
    'if [ -n "$4" ]; then exec /usr/local/bin/node -e "$4"; fi',
  ].join("\n");
  const argv = [
    "sh",
    "-c",
    script,
    "turn-setup",
    box.checkout ?? "",
    branch,
    boxRequestsFile(box),
    agent ? BOX_AGENT_SETUP_SCRIPT : "",
  ];
  const result = await box.exec(argv, {
    env: { ...env },
    timeoutMs: SETUP_TIMEOUT_MS,
    signal,
    ...(agent ? { stdin: boxAgentSetupInput(agent) } : {}),
  });
  const detail = result.stderr.trim().slice(-300);
  if (result.exitCode === CHECKOUT_FAILED)
    return {
      kind: "failed",
      reason: `the task's checkout could not be made in the box: ${detail}`,
    };
  if (result.exitCode === REQUESTS_FAILED)
    return { kind: "failed", reason: `cannot prepare the turn-requests file in the box: ${detail}` };
  if (agent) return readBoxAgentSetupAnswer(agent, result);
  if (result.exitCode !== 0)
    return {
      kind: "failed",
      reason: `the turn could not be set up in the box (exit ${result.exitCode}): ${detail}`,
    };
  return { kind: "ready", env: {} };
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

// A throwaway sandbox for runner tests: HOME with ~/.baton (saved handoff, environment file header naming the
// secret variables), a checkout with the startup script, and a way to run the real bundled runner.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { type EvidenceRecord, EvidenceRecordSchema } from "../../../src/evidence/index.js";
import type { ManagedStartup } from "../../../src/transport/wire.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { savedHandoff } from "../../helpers/handoff.js";

export const RUNNER = join(PROJECT_ROOT, "dist", "runner", "baton-runner.cjs");
/**
 * Sandbox images bring their own Node: the oldest the runner supports (18, installed by the test setup from the
 * npm `node@18` package), the machine's Node 20 and the project's Node 22.
 */
export const NODES = [
  ["node 18", join(PROJECT_ROOT, "node_modules", ".cache", "baton-node18", "node_modules", ".bin", "node")],
  ["node 20", "/usr/bin/node"],
  ["node 22", join(PROJECT_ROOT, "node_modules", ".bin", "node")],
] as const;

/** What `<node> --version` prints, to check the runner reports the Node it really ran on. */
export function nodeVersionOf(node: string): string {
  return execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
}

export interface SandboxOptions {
  script: string;
  timeoutSeconds?: number;
  checks?: unknown[];
  /** Assigned names of secret variables, written into the environment file's header. */
  secretNames?: string[];
}

export interface Sandbox {
  root: string;
  home: string;
  checkout: string;
  evidencePath: string;
  handoffPath: string;
}

const created: string[] = [];

export function makeSandbox(options: SandboxOptions): Sandbox {
  const root = mkdtempSync(join(tmpdir(), "baton-runner-"));
  created.push(root);
  const home = join(root, "home");
  const checkout = join(root, "checkout");
  mkdirSync(join(home, ".baton", "handoffs"), { recursive: true });
  mkdirSync(checkout, { recursive: true });
  writeFileSync(join(checkout, "start.sh"), options.script, { mode: 0o644 }); // not executable: bash runs it
  const evidencePath = join(home, ".baton", "evidence", "acme__api.json");
  const handoffPath = join(home, ".baton", "handoffs", "acme__api.json");
  const handoff = savedHandoff(checkout, {
    versionId: "ver_42",
    startupScriptPath: join(checkout, "start.sh"),
    runPath: join(home, ".baton", "runner", "baton-runner.cjs"),
    evidencePath,
    readiness: { checks: (options.checks ?? []) as ManagedStartup["readiness"]["checks"] },
    ...(options.timeoutSeconds === undefined ? {} : { startupTimeoutSeconds: options.timeoutSeconds }),
  });
  writeFileSync(handoffPath, JSON.stringify(handoff));
  const header = [
    "# baton-environment-file: 1",
    "# baton-overlay-revision: 1",
    ...(options.secretNames ?? []).map((name) => `# baton-variable: acme/api ${name} ${name} secret`),
    "",
  ].join("\n");
  writeFileSync(join(home, ".baton", "environment.sh"), header);
  return { root, home, checkout, evidencePath, handoffPath };
}

export function removeSandboxes(): void {
  for (const root of created.splice(0)) rmSync(root, { recursive: true, force: true });
}

export function startRunner(
  sandbox: Sandbox,
  options: {
    node?: string;
    args?: string[];
    env?: Record<string, string>;
    nodeArgs?: string[];
    /** Kills a runner that hangs (e.g. on a FIFO), so the test fails instead of stalling. */
    timeoutMs?: number;
  } = {},
) {
  const args = [...(options.nodeArgs ?? []), RUNNER, ...(options.args ?? ["--repo", "acme/api"])];
  return execa(options.node ?? (NODES[1][1] as string), args, {
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    reject: false,
    stripFinalNewline: false,
    extendEnv: false,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sandbox.home, ...options.env },
  });
}

export interface RunnerOutcome {
  exitCode: number;
  stdout: string;
  stderr: string;
  record: EvidenceRecord;
  fileText: string;
}

/** Waits for the runner, checks stdout and the evidence file hold the same schema-valid document. */
export async function finishRunner(
  sandbox: Sandbox,
  run: ReturnType<typeof startRunner>,
  evidencePath = sandbox.evidencePath,
): Promise<RunnerOutcome> {
  const result = await run;
  const stdout = String(result.stdout);
  const fileText = readFileSync(evidencePath, "utf8");
  if (stdout !== fileText) throw new Error(`stdout and ${evidencePath} differ:\n${stdout}\n---\n${fileText}`);
  if (Buffer.byteLength(fileText) > 32 * 1024 + 1)
    throw new Error(`evidence is ${Buffer.byteLength(fileText)} bytes`);
  const record = EvidenceRecordSchema.parse(JSON.parse(fileText));
  return { exitCode: result.exitCode ?? -1, stdout, stderr: String(result.stderr), record, fileText };
}

export function runRunner(
  sandbox: Sandbox,
  options?: Parameters<typeof startRunner>[1],
): Promise<RunnerOutcome> {
  return finishRunner(sandbox, startRunner(sandbox, options));
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

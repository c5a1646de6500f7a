// What `baton/testing` takes and gives back. The helpers' results are the documents the CLI prints with --json
// (and the startup evidence record), so a repository's tests can name their fields.
import type { z } from "zod";
import type { ActivationJson } from "../activation/activate.js";
import type { Disclosure } from "../disclosure/types.js";
import type { DockerfileApplyDocument } from "../dockerfile/command.js";
import type { EvidenceRecord } from "../evidence/record.js";
import type { Readiness, SandboxViewSchema } from "../transport/wire.js";

export type { ActivationJson, Disclosure, DockerfileApplyDocument, EvidenceRecord };

/** The box as the service reports it (`POST /admin/v1/sandboxes`): image, driver, pre_clone records, state. */
export type SandboxView = z.infer<typeof SandboxViewSchema>;

export interface SandboxSecret {
  name: string;
  value: string;
  allowedHosts: string[];
}

export interface SandboxEnvironmentConfig {
  dockerfilePath?: string;
  agentInstructionsPath?: string;
  startupScriptPath?: string;
  startupTimeoutSeconds?: number;
  /** e.g. `{ checks: [{ kind: "http", url: "http://127.0.0.1:3000/health", deadlineSeconds: 30 }] }` */
  readiness?: Readiness;
}

export interface SandboxProxyOptions {
  /** Extra `baton proxy` flags: `--config <file>` (allow rules, DNS), `--state-dir <dir>` (its CA). */
  args?: string[];
}

export interface StartSandboxOptions {
  /** The repository's checkout on this machine; copied into the box at ~/checkouts/<owner>/<name>. */
  checkout: string;
  /** `owner/name` (default `local/<checkout folder name>`). */
  repository?: string;
  /** The sandbox image (default: the one `npm run sandbox-image` built, or `.batonrc.json`'s snapshot_name). */
  image?: string;
  /** Repository secrets: they reach the box as placeholders only; `baton proxy` swaps in values. */
  secrets?: SandboxSecret[];
  /** Plain configuration (`sandbox.env` of the service's repository record): the box's own environment. */
  sandboxEnv?: Record<string, string>;
  /** The repository's environment version (default: Dockerfile, AGENTS.md and a start script when present). */
  environment?: SandboxEnvironmentConfig;
  /** More checkouts copied in beside the first (`owner/name` → folder); add them to `seed` too. */
  extraCheckouts?: Record<string, string>;
  /** A whole seed document instead of the generated one (workspace `ws_test` unless it says otherwise). */
  seed?: { workspaces: { id: string }[] } & Record<string, unknown>;
  /**
   * `baton proxy`, the box's only way out (on by default; its CA lives in a temporary folder unless `args` give
   * `--state-dir`). `false` starts none: the box then reaches nothing but the service, and secrets stay
   * placeholders that nothing swaps.
   */
  proxy?: SandboxProxyOptions | false;
  /** Extra environment for `baton serve` and `baton proxy` (e.g. BATON_LOG_LEVEL). */
  serviceEnv?: Record<string, string>;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface BatonSandbox {
  sandboxId: string;
  /** The Docker container id. */
  containerId: string;
  /** The box as the service created it (`box.image` is the image it runs). */
  box: SandboxView;
  repository: string;
  /** The checkout inside the box. */
  checkoutPath: string;
  /** The `baton serve` public listener (`/v1`); its admin and sandbox listeners are on other ports. */
  serviceUrl: string;
  /** The `baton proxy` URL on this machine; null with `proxy: false`. */
  proxyUrl: string | null;
  /** The sandbox variables as the service set them (BATON_*, proxy settings, sandbox.env, placeholders). */
  env: Record<string, string>;
  /** Runs `bash -c <script>` (a new shell: it reads ~/.baton/environment.sh) or an argument list, in the checkout. */
  exec(
    command: string | readonly string[],
    options?: { cwd?: string; timeoutSeconds?: number },
  ): Promise<ExecResult>;
  /** `baton env activate <repository> --json`; throws when it fails. Returns the operation. */
  activate(repository?: string): Promise<ActivationJson>;
  /** `baton dockerfile apply <repository> --json`; throws when a step fails. */
  applyDockerfile(repository?: string): Promise<DockerfileApplyDocument>;
  /**
   * Runs the startup runner at the handoff's runPath in a new shell; returns the evidence record (checked
   * against the evidence schema), whatever its outcome.
   */
  runStartup(repository?: string): Promise<EvidenceRecord>;
  /** `baton disclose <repository> --json [--check name=result]…`. */
  disclose(repository?: string, checks?: string[]): Promise<Disclosure>;
  /** Reads a file inside the box. */
  readFile(pathInBox: string): Promise<string>;
  /** Everything the service and the proxy logged (stderr), for checks. */
  serviceLog(): string;
  stop(): Promise<void>;
}

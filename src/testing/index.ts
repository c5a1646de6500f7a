// `baton/testing`: run a repository's agent environment in a real container sandbox from its own integration
// tests. `startSandbox` starts `baton serve` (and `baton proxy` when `proxy` is given) for the test, provisions a
// Docker sandbox holding the checkout, and returns helpers that run commands inside it the way an agent would.
// Commands and files go through testcontainers (Ryuk off: the sandbox is removed by `stop()`).
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { Readable } from "node:stream";
import { execa } from "execa";
import { BATONRC_FILE } from "../config/batonrc.js";
import { buildLocalSeed, detectEnvironment, localRepositoryName } from "../envtest/seed.js";
import { checkoutPathInBox } from "../server/sandboxes/driver.js";
import type { Readiness } from "../transport/wire.js";
import { type ChildService, startChild } from "./services.js";

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

export interface StartSandboxOptions {
  /** The repository's checkout on this machine; copied into the box at ~/checkouts/<owner>/<name>. */
  checkout: string;
  /** `owner/name` (default `local/<checkout folder name>`). */
  repository?: string;
  /** The sandbox image (default: the one `npm run sandbox-image` built, or `.batonrc.json`'s snapshot_name). */
  image?: string;
  /** Repository secrets: they reach the box as placeholders only; `baton proxy` swaps in values. */
  secrets?: SandboxSecret[];
  /** Plain configuration (`sandbox.env` of the service's repository record). */
  sandboxEnv?: Record<string, string>;
  /** The repository's environment version (default: Dockerfile, AGENTS.md and a start script when present). */
  environment?: SandboxEnvironmentConfig;
  /** More checkouts copied in beside the first (`owner/name` → folder); add them to `seed` too. */
  extraCheckouts?: Record<string, string>;
  /** A whole seed document instead of the generated one (workspace `ws_test` unless it says otherwise). */
  seed?: { workspaces: { id: string }[] } & Record<string, unknown>;
  /** Start `baton proxy` (issue 11) for the box's egress, with these extra flags (`--config`, `--state-dir`). */
  proxy?: { args?: string[] };
  /** Extra environment for `baton serve` (e.g. BATON_LOG_LEVEL). */
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
  repository: string;
  /** The checkout inside the box. */
  checkoutPath: string;
  serviceUrl: string;
  /** The sandbox variables as the service set them (BATON_*, proxy settings, sandbox.env, placeholders). */
  env: Record<string, string>;
  /** Runs `bash -c <script>` (a new shell: it reads ~/.baton/environment.sh) or an argument list, in the checkout. */
  exec(
    command: string | readonly string[],
    options?: { cwd?: string; timeoutSeconds?: number },
  ): Promise<ExecResult>;
  /** `baton env activate <repository> --json`; throws when it fails. Returns the operation. */
  activate(repository?: string): Promise<Record<string, unknown>>;
  /** `baton dockerfile apply <repository> --json`. */
  applyDockerfile(repository?: string): Promise<Record<string, unknown>>;
  /** Runs the startup runner at the handoff's runPath in a new shell; returns the parsed evidence. */
  runStartup(repository?: string): Promise<Record<string, unknown>>;
  /** `baton disclose <repository>`; returns `{markdown, draft, ...}`. */
  disclose(repository?: string, checks?: string[]): Promise<Record<string, unknown>>;
  /** Reads a file inside the box. */
  readFile(pathInBox: string): Promise<string>;
  /** Everything the service logged (stderr), for checks. */
  serviceLog(): string;
  stop(): Promise<void>;
}

const WORKSPACE = "ws_test";

/** A loopback port nothing listens on right now (the service binds it a moment later). */
async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

export async function startSandbox(options: StartSandboxOptions): Promise<BatonSandbox> {
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= "true";
  const { getContainerRuntimeClient } = await import("testcontainers");
  const checkout = resolve(options.checkout);
  const repository = options.repository ?? localRepositoryName(basename(checkout));
  const tmp = await mkdtemp(join(tmpdir(), "baton-sandbox-testing-"));
  const adminToken = randomBytes(24).toString("hex");
  const seed =
    options.seed ??
    buildLocalSeed({
      workspaceId: WORKSPACE,
      repository,
      sandboxEnv: options.sandboxEnv ?? {},
      secrets: options.secrets ?? [],
      environment: {
        ...detectEnvironment((path) => existsSync(join(checkout, path))),
        ...options.environment,
      },
    });
  const workspaceId = seed.workspaces[0]!.id;
  await writeFile(join(tmp, "seed.json"), JSON.stringify(seed), { mode: 0o600 });
  const services: ChildService[] = [];
  const stopServices = async () => {
    for (const service of services.reverse()) await service.stop();
    await rm(tmp, { recursive: true, force: true });
  };
  try {
    // The proxy asks the service about leases (BATON_PROXY_TOKEN on both) and the service's boxes reach the
    // proxy: the service's port is chosen first so each can be told where the other is.
    const env = {
      ...process.env,
      ...options.serviceEnv,
      BATON_ADMIN_TOKEN: adminToken,
      ...(options.proxy ? { BATON_PROXY_TOKEN: randomBytes(24).toString("hex") } : {}),
    };
    const servePort = options.proxy ? await freeLoopbackPort() : 0;
    const serveArgs = ["serve", "--port", String(servePort), "--db", join(tmp, "serve.sqlite")];
    serveArgs.push("--seed", join(tmp, "seed.json"), "--json", "--sandbox-driver", "docker");
    if (options.image) serveArgs.push("--sandbox-image", options.image);
    if (options.proxy) {
      const proxyArgs = ["proxy", "--host", "127.0.0.1", "--port", "0", "--json"];
      proxyArgs.push("--serve-url", `http://127.0.0.1:${servePort}`, ...(options.proxy.args ?? []));
      const proxy = await startChild(proxyArgs, env);
      services.push(proxy);
      serveArgs.push("--sandbox-proxy", new URL(String(proxy.ready.url)).host);
    }
    const serve = await startChild(serveArgs, env);
    services.push(serve);
    const serviceUrl = String(serve.ready.url);
    const provisioned = await fetch(`${serviceUrl}/admin/v1/sandboxes`, {
      method: "POST",
      headers: { "content-type": "application/json", "baton-admin-token": adminToken },
      body: JSON.stringify({
        workspaceId,
        engagementId: `eng-${randomBytes(4).toString("hex")}`,
        repository,
        checkout,
      }),
    });
    const body = (await provisioned.json()) as {
      sandboxId: string;
      env: Record<string, string>;
      sandbox: { ref: string };
      reason?: string;
    };
    if (provisioned.status !== 201)
      throw new Error(`the sandbox was not created: ${body.reason ?? provisioned.status}`);
    const client = await getContainerRuntimeClient();
    const container = client.container.getById(body.sandbox.ref);
    const checkoutPath = checkoutPathInBox(repository);

    for (const [extra, dir] of Object.entries(options.extraCheckouts ?? {})) {
      const target = checkoutPathInBox(extra);
      await client.container.exec(container, ["mkdir", "-p", target]);
      const tar = await execa(
        "tar",
        ["-c", "--owner=1000", "--group=1000", "--numeric-owner", "-C", resolve(dir), "."],
        {
          encoding: "buffer",
        },
      );
      await client.container.putArchive(container, Readable.from([tar.stdout]), target);
    }

    const exec: BatonSandbox["exec"] = async (command, execOptions = {}) => {
      const argv = typeof command === "string" ? ["bash", "-c", command] : [...command];
      const seconds = String(execOptions.timeoutSeconds ?? 600);
      const result = await client.container.exec(container, ["timeout", "--kill-after=2", seconds, ...argv], {
        workingDir: execOptions.cwd ?? checkoutPath,
      });
      return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
    };
    const baton = async (args: string[]) => {
      const result = await exec(["baton", ...args]);
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(result.stdout) as Record<string, unknown>;
      } catch {
        throw new Error(
          `baton ${args[0]} ${args[1] ?? ""} printed no JSON (exit ${result.exitCode}): ${result.stderr.trim()}`,
        );
      }
      if (result.exitCode !== 0)
        throw Object.assign(new Error(`baton ${args.slice(0, 2).join(" ")} exited ${result.exitCode}`), {
          result: parsed,
        });
      return parsed;
    };
    const readBoxFile = async (pathInBox: string) => {
      const result = await exec(["cat", "--", pathInBox]);
      if (result.exitCode !== 0)
        throw new Error(`cannot read ${pathInBox} in the box: ${result.stderr.trim()}`);
      return result.stdout;
    };

    return {
      sandboxId: body.sandboxId,
      containerId: body.sandbox.ref,
      repository,
      checkoutPath,
      serviceUrl,
      env: body.env,
      exec,
      activate: (repo = repository) => baton(["env", "activate", repo, "--json"]),
      applyDockerfile: (repo = repository) => baton(["dockerfile", "apply", repo, "--json"]),
      async runStartup(repo = repository) {
        const handoffFile = `/home/agent/.baton/handoffs/${repo.replace("/", "__")}.json`;
        const handoff = JSON.parse(await readBoxFile(handoffFile)) as {
          managedStartup?: { runPath?: string };
        };
        const runPath = (handoff.managedStartup?.runPath ?? "~/.baton/runner/baton-runner.cjs").replace(
          /^~\//,
          "/home/agent/",
        );
        // A new bash reads ~/.baton/environment.sh by itself (BASH_ENV): the runner runs in that shell.
        const result = await exec(["bash", "-c", 'node "$1" --repo "$2"', "run-startup", runPath, repo], {
          cwd: checkoutPathInBox(repo),
        });
        return JSON.parse(result.stdout) as Record<string, unknown>;
      },
      disclose: (repo = repository, checks = []) =>
        baton(["disclose", repo, "--json", ...checks.flatMap((c) => ["--check", c])]),
      readFile: readBoxFile,
      serviceLog: () => services.map((s) => s.stderr()).join("\n"),
      async stop() {
        await stopServices(); // the service removes its boxes and network when it stops
      },
    };
  } catch (error) {
    await stopServices();
    throw error;
  }
}

export { BATONRC_FILE };

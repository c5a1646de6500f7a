// `baton/testing`: run a repository's agent environment in a real container sandbox from its own integration
// tests. `startSandbox` starts `baton serve` and `baton proxy` (unless `proxy: false`) for the test, provisions
// a Docker sandbox holding the checkout, and returns helpers that run commands inside it the way an agent would.
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
import { EvidenceRecordSchema } from "../evidence/schema.js";
import { checkoutPathInBox } from "../server/adapters/sandboxes/driver.js";
import { type ChildService, startChild } from "./services.js";
import type {
  ActivationJson,
  BatonSandbox,
  Disclosure,
  DockerfileApplyDocument,
  SandboxView,
  StartSandboxOptions,
} from "./types.js";

export type * from "./types.js";

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
  const adminToken = randomBytes(32).toString("hex");
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
  const proxyOptions = options.proxy === false ? null : (options.proxy ?? {});
  try {
    // The proxy asks the service's admin listener about leases (BATON_PROXY_TOKEN on both) and the service's
    // boxes reach the proxy: the admin listener's port is chosen first so each can be told where the other is.
    const env = {
      ...process.env,
      ...options.serviceEnv,
      BATON_ADMIN_TOKEN: adminToken,
      ...(proxyOptions ? { BATON_PROXY_TOKEN: randomBytes(32).toString("hex") } : {}),
    };
    // The proxy calls the admin listener; the service's boxes reach the proxy.
    const adminPort = proxyOptions ? await freeLoopbackPort() : 0;
    const serveArgs = ["serve", "--port", "0", "--db", join(tmp, "serve.sqlite")];
    serveArgs.push("--admin-listen", `127.0.0.1:${adminPort}`);
    serveArgs.push("--seed", join(tmp, "seed.json"), "--json", "--sandbox-driver", "docker");
    // The service copies only from under its checkout root: the test's own checkout.
    serveArgs.push("--checkout-root", checkout);
    // One box, asked for at once: a pool of ready boxes would only make boxes nobody takes.
    serveArgs.push("--sandbox-pool-size", "0");
    if (options.image) serveArgs.push("--sandbox-image", options.image);
    let proxyUrl: string | null = null;
    if (proxyOptions) {
      // Its CA goes to the test's folder, not the user's data folder; a --state-dir in args comes later and wins.
      const proxyArgs = ["proxy", "--host", "127.0.0.1", "--port", "0", "--json"];
      proxyArgs.push("--serve-url", `http://127.0.0.1:${adminPort}`, "--state-dir", join(tmp, "proxy-state"));
      const proxy = await startChild([...proxyArgs, ...(proxyOptions.args ?? [])], env);
      services.push(proxy);
      proxyUrl = String(proxy.ready.url);
      serveArgs.push("--sandbox-proxy", new URL(proxyUrl).host);
    }
    const serve = await startChild(serveArgs, env);
    services.push(serve);
    const serviceUrl = String(serve.ready.url);
    const provisioned = await fetch(`${String(serve.ready.adminUrl)}/admin/v1/sandboxes`, {
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
      sandbox?: SandboxView;
      reason?: string;
    };
    const containerId = body.sandbox?.ref;
    if (provisioned.status !== 201 || !body.sandbox || !containerId)
      throw new Error(`the sandbox was not created: ${body.reason ?? provisioned.status}`);
    const client = await getContainerRuntimeClient();
    const container = client.container.getById(containerId);
    const checkoutPath = checkoutPathInBox(repository);
    // The box runs as a uid of its own (the container's User) and its container holds no turn token or lease:
    // files come in owned by that uid, and every command gets the sandbox's variables, as the service's do.
    const boxUser = String((await client.container.inspect(container)).Config.User).split(":")[0] ?? "1000";
    const boxEnv = body.env;

    for (const [extra, dir] of Object.entries(options.extraCheckouts ?? {})) {
      const target = checkoutPathInBox(extra);
      await client.container.exec(container, ["mkdir", "-p", target], { env: boxEnv });
      const tar = await execa(
        "tar",
        ["-c", `--owner=${boxUser}`, `--group=${boxUser}`, "--numeric-owner", "-C", resolve(dir), "."],
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
        env: boxEnv,
      });
      return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
    };
    // The CLI's --json documents are its contract (schema'd and tested where the CLI is): typed, not re-checked.
    const baton = async <T>(args: string[]): Promise<T> => {
      const result = await exec(["baton", ...args]);
      let parsed: T;
      try {
        parsed = JSON.parse(result.stdout) as T;
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
      containerId,
      box: body.sandbox,
      repository,
      checkoutPath,
      serviceUrl,
      proxyUrl,
      env: body.env,
      exec,
      activate: (repo = repository) => baton<ActivationJson>(["env", "activate", repo, "--json"]),
      applyDockerfile: (repo = repository) =>
        baton<DockerfileApplyDocument>(["dockerfile", "apply", repo, "--json"]),
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
        let printed: unknown;
        try {
          printed = JSON.parse(result.stdout);
        } catch {
          throw new Error(
            `the startup runner printed no evidence (exit ${result.exitCode}): ${result.stderr.trim()}`,
          );
        }
        // The runner is a dependency-free bundle: its record is checked against the schema here, at the edge.
        return EvidenceRecordSchema.parse(printed);
      },
      disclose: (repo = repository, checks = []) =>
        baton<Disclosure>(["disclose", repo, "--json", ...checks.flatMap((c) => ["--check", c])]),
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

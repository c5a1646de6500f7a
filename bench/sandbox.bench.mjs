// Sandbox start-up: create-to-ready (a box with the fixture checkout copied in, answering its first command) on
// the docker and namespace drivers, and `baton env test` wall time on each, against `docker run --rm <image>
// true` and `devcontainer up` (@devcontainers/cli) on the same image, all measured in this run.
// Needs root, Docker and bubblewrap (scripts/setup-machine.sh) and the image (`npm run sandbox-image`).
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDockerDriver } from "../dist/src/server/sandboxes/drivers/docker.js";
import { createNamespaceDriver } from "../dist/src/server/sandboxes/drivers/namespace.js";
import { resolveSandboxImage } from "../dist/src/server/sandboxes/image.js";
import { median, report, timeRuns } from "./lib.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const fixture = join(root, "fixtures", "repos", "acme-api");
const bin = join(root, "dist", "src", "cli", "bin.js");
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const image = resolveSandboxImage();
if (!image.image) throw new Error("no sandbox image: run `npm run sandbox-image` first");
const tmp = mkdtempSync(join(tmpdir(), "baton-sandbox-bench-"));
const name = () => `baton-sandbox-bench-${randomBytes(4).toString("hex")}`;
const results = {};

async function measure(label, fn, runs = RUNS) {
  const sorted = await timeRuns(fn, { runs, warmup: 1 });
  results[label] = { label, value: median(sorted) };
  return results[label];
}

try {
  const dockerRun = await measure("docker run --rm <image> true", async () => {
    execFileSync("docker", ["run", "--rm", "--name", name(), "--network", "none", image.image, "true"]);
  });

  const workspace = join(tmp, "devcontainer");
  mkdirSync(join(workspace, ".devcontainer"), { recursive: true });
  const devcontainer = await measure("devcontainer up (same image)", async () => {
    const container = name();
    writeFileSync(
      join(workspace, ".devcontainer", "devcontainer.json"),
      JSON.stringify({ image: image.image, runArgs: ["--name", container] }),
    );
    execFileSync(
      join(root, "node_modules", ".bin", "devcontainer"),
      ["up", "--workspace-folder", workspace, "--id-label", `baton.sandbox.bench=${container}`],
      { stdio: "ignore" },
    );
    execFileSync("docker", ["rm", "-f", container], { stdio: "ignore" });
  });

  for (const [driverName, make] of [
    ["docker", () => createDockerDriver({ endpoints: {} })],
    [
      "namespace",
      () => createNamespaceDriver({ endpoints: {}, rootfs: image.rootfs, batonDir: image.batonDir }),
    ],
  ]) {
    const driver = await make();
    try {
      const refs = [];
      await measure(`${driverName} driver: create-to-ready (checkout copied, first command)`, async () => {
        const box = await driver.create({
          name: name(),
          image: image.image,
          env: {},
          checkouts: [{ hostPath: fixture, repository: "acme/api" }],
        });
        const ready = await driver.exec(box.ref, ["true"], { timeoutMs: 30_000 });
        if (ready.exitCode !== 0) throw new Error(`${driverName} box did not answer`);
        refs.push(box.ref);
      });
      for (const ref of refs) await driver.remove(ref);
    } finally {
      await driver.close();
    }
  }

  for (const driverName of ["docker", "namespace"]) {
    await measure(
      `baton env test --driver ${driverName} (fixture repository)`,
      async () => {
        execFileSync(
          process.execPath,
          [bin, "env", "test", fixture, "--repository", "acme/api", "--driver", driverName, "--json"],
          {
            stdio: "ignore",
          },
        );
      },
      Math.max(3, Math.ceil(RUNS / 2)),
    );
  }

  console.log(`median of ${RUNS} runs (env test: ${Math.max(3, Math.ceil(RUNS / 2))}) on ${image.image}`);
  for (const entry of Object.values(results))
    report(entry.label, entry.value, "ms", dockerRun === entry ? undefined : dockerRun);
  for (const driverName of ["docker", "namespace"]) {
    const entry = results[`baton env test --driver ${driverName} (fixture repository)`];
    report(`${entry.label} vs devcontainer up`, entry.value, "ms", devcontainer);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

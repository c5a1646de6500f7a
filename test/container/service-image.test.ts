// The service image (`npm run service-image`, issue 37 B15): built with no registry on the sandbox image's base,
// started as the docs show it (non-root, `--init`, PostgreSQL, a key file in its state volume, a seed mounted
// read-only), judged healthy by its own health check, and used from the real `baton` client on the host: a task
// started with `baton start` follows through to the scripted agent's reply. The container shares the host's
// network so it reaches the test PostgreSQL on loopback, as an operator's would reach theirs by address.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PROJECT_ROOT } from "../helpers/cli.js";
import { pollUntil } from "../helpers/poll.js";
import { freshSchema, type TestSchema } from "../helpers/postgres.js";
import { schemaUrl } from "../helpers/serve-place.js";
import { signIn } from "../integration/client/client-harness.js";

const TOKEN = "btn_service-image-owner-5b0e7c2a9d14f36e";
let image = "";
let schema: TestSchema;
let dir = "";
const container = `baton-service-test-${process.pid}`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

beforeAll(async () => {
  const built = execFileSync(
    process.execPath,
    [join(PROJECT_ROOT, "scripts", "build-service-image.mjs"), "--skip-build", "--json"],
    { cwd: PROJECT_ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
  );
  image = (JSON.parse(built) as { image: string }).image;
  schema = await freshSchema();
  dir = await mkdtemp(join(tmpdir(), "baton-service-image-"));
}, 900_000);

afterAll(async () => {
  execFileSync("docker", ["rm", "-f", container], { stdio: "ignore" });
  execFileSync("docker", ["volume", "rm", "-f", `${container}-state`], { stdio: "ignore" });
  await schema?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("runs baton serve as a non-root user on PostgreSQL, healthy, and answers a task from the client", {
  timeout: 300_000,
}, async () => {
  const inspect = (format: string) =>
    execFileSync("docker", ["image", "inspect", "--format", format, image], { encoding: "utf8" }).trim();
  expect(inspect("{{.Config.User}}")).toBe("10001:10001");
  expect(inspect("{{json .Config.Healthcheck.Test}}")).toContain("/healthz");

  await writeFile(
    join(dir, "seed.json"),
    JSON.stringify({
      agent: { rules: [{ reply: "Done: {prompt}." }] },
      workspaces: [
        {
          id: "ws_acme",
          name: "Acme",
          members: [{ email: "owner@acme.test", role: "owner", token: TOKEN }],
          repositories: [{ repository: "acme/api" }],
        },
      ],
    }),
  );
  const port = await freePort();
  execFileSync("docker", [
    "run",
    "-d",
    "--init",
    "--name",
    container,
    "--network",
    "host",
    "-v",
    `${container}-state:/var/lib/baton`,
    "-v",
    `${join(dir, "seed.json")}:/etc/baton/seed.json:ro`,
    "-e",
    `BATON_HEALTH_PORT=${port}`,
    image,
    "serve",
    "--host",
    "127.0.0.1",
    "--port",
    String(port),
    "--database-url",
    schemaUrl(schema.schema),
    "--secret-key-file",
    "/var/lib/baton/secret.key",
    "--seed",
    "/etc/baton/seed.json",
  ]);
  const health = await pollUntil(
    () =>
      execFileSync("docker", ["inspect", "--format", "{{.State.Health.Status}}", container], {
        encoding: "utf8",
      }).trim(),
    (status) => status === "healthy" || status === "unhealthy",
    { timeoutMs: 120_000 },
  );
  if (health !== "healthy")
    throw new Error(
      `the container is ${health}: ${execFileSync("docker", ["logs", container], { encoding: "utf8" })}`,
    );
  expect(execFileSync("docker", ["exec", container, "id", "-u"], { encoding: "utf8" }).trim()).toBe("10001");

  const user = await signIn(`http://127.0.0.1:${port}`, TOKEN);
  try {
    const run = await user.run(["start", "Fix the login page", "--repo", "acme/api", "--timeout", "3"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("Done: Fix the login page.");
  } finally {
    await user.remove();
  }
});

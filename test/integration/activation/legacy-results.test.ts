// Older workers' results through the real CLI. A scripted loopback server stands in for the operations service
// here because `baton serve` only ever sends the current handoff shape; it answers with the fixtures under
// fixtures/handoffs/ exactly as an older worker would.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SavedHandoffSchema } from "../../../src/handoff/index.js";
import { PATHS } from "../../../src/transport/wire.js";
import { PROJECT_ROOT, runBaton } from "../../helpers/cli.js";
import { makeSandboxHome, type SandboxHome } from "../../helpers/serve.js";

let server: Server | undefined;
let home: SandboxHome | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await home?.remove();
  server = home = undefined;
});

async function serveResult(fixture: string): Promise<string> {
  const result = JSON.parse(
    readFileSync(join(PROJECT_ROOT, "fixtures", "handoffs", `${fixture}.json`), "utf8"),
  );
  const at = "2026-01-01T00:00:00.000Z";
  const op = (state: string) => ({
    id: "op_legacy",
    kind: "env.activate",
    state,
    repository: "acme/api",
    createdAt: at,
    updatedAt: at,
    finishedAt: state === "succeeded" ? at : null,
    result: state === "succeeded" ? result : null,
    error: null,
  });
  const overlay = {
    revision: result.overlayRevision,
    repositories: [
      {
        repository: "acme/api",
        repositoryId: "repo_api",
        variables: [
          {
            name: "DATABASE_URL",
            assigned: "DATABASE_URL",
            value: "postgres://db/api",
            source: "sandbox.env",
          },
        ],
      },
    ],
  };
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const url = req.url ?? "";
      const body =
        req.method === "POST" && url === PATHS.operations
          ? op("pending")
          : url.startsWith(PATHS.operationOverlay("op_legacy"))
            ? overlay
            : url.startsWith(PATHS.operation("op_legacy"))
              ? op("succeeded")
              : undefined;
      res.writeHead(body ? 200 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify(body ?? { error: "not_found" }));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function activate(fixture: string) {
  const url = await serveResult(fixture);
  home = await makeSandboxHome({ "acme/api": "acme-api" });
  const env = home.env({
    sandboxId: "s",
    engagementId: "e",
    env: { BATON_OPS_URL: url, BATON_TURN_TOKEN: "t", BATON_SANDBOX_LEASE: "l" },
  });
  const run = await runBaton(["env", "activate", "acme/api"], { env });
  const saved = SavedHandoffSchema.parse(
    JSON.parse(await readFile(join(home.home, ".baton", "handoffs", "acme__api.json"), "utf8")),
  );
  return { run, saved };
}

describe("baton env activate accepts the older result shapes the reference names", () => {
  it("`applied` from an older worker: saved as applied, and no Dockerfile step", async () => {
    const { run, saved } = await activate("legacy-applied");
    expect(run.exitCode, run.stderr).toBe(0);
    expect(saved.managedStartup?.dockerfileStatus).toBe("applied");
    expect(run.stdout).not.toContain("baton dockerfile apply");
    expect(run.stdout).toContain("was already applied");
  });

  it("a handoff without dockerfilePath and dockerfileStatus: no Dockerfile, not_applied", async () => {
    const { run, saved } = await activate("legacy-no-dockerfile-fields");
    expect(run.exitCode, run.stderr).toBe(0);
    expect(saved.managedStartup?.dockerfilePath).toBeNull();
    expect(saved.managedStartup?.dockerfileStatus).toBe("not_applied");
    expect(saved.managedStartup?.startupScriptPath).toBe(
      join(home!.checkout("acme/api"), "scripts", "start.sh"),
    );
    expect(run.stdout).not.toContain("baton dockerfile apply");
  });

  it("a result without the handoff: the environment is written, the saved handoff holds null, and the steps say so", async () => {
    const { run, saved } = await activate("legacy-no-handoff");
    expect(run.exitCode, run.stderr).toBe(0);
    expect(saved.managedStartup).toBeNull();
    expect(run.stdout).toContain("No managed startup handoff came with this activation");
    expect(await readFile(join(home!.home, ".baton", "environment.sh"), "utf8")).toContain(
      "export DATABASE_URL=",
    );
  });

  it("delivery_failed: the disclosure replaces the runnable steps", async () => {
    const { run, saved } = await activate("current-delivery-failed");
    expect(run.exitCode, run.stderr).toBe(0);
    expect(saved.managedStartup?.state).toBe("delivery_failed");
    expect(run.stdout).toContain(
      "No managed startup (delivery_failed): The startup handoff could not be delivered",
    );
    expect(run.stdout).not.toMatch(/^ {2}\d\. node /m);
  });
});

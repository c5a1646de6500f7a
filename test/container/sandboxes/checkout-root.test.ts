// Checkouts come only from under `baton serve --checkout-root` (issue 21 item 4): a real `baton serve` with the
// namespace driver refuses /etc, its own data folder, a link out of the root and a `..` escape with 400, and
// copies a checkout under the root, whose inner link to a host secret is copied as a link (never followed), so
// the secret's value reaches no box. Start-up refuses a root that overlaps the service's own files (exit 1).
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_PATHS } from "../../../src/transport/wire.js";
import { runBaton } from "../../helpers/cli.js";
import { ACTIVATION_SEED, FIXTURES, type ServeHandle, startServe } from "../../helpers/serve.js";

const OWNER = { workspaceId: "ws_acme" };
const engagement = () => `eng-${randomBytes(4).toString("hex")}`;

describe("checkouts come only from under --checkout-root", () => {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), "baton-checkout-root-")));
  const root = join(tmp, "checkouts");
  const outside = join(tmp, "outside");
  const canary = `cAnArY-host-secret-${randomBytes(12).toString("hex")}`;
  let serve: ServeHandle;
  let bare: ServeHandle;

  const create = (service: ServeHandle, checkout: string) =>
    service.admin(ADMIN_PATHS.sandboxes, {
      ...OWNER,
      engagementId: engagement(),
      repository: "acme/api",
      checkout,
    });

  beforeAll(async () => {
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, "host-secret"), `${canary}\n`);
    cpSync(join(FIXTURES, "repos", "acme-api"), join(root, "repo"), { recursive: true });
    // A link inside the checkout to a host file outside the root, and links that are themselves the way out.
    symlinkSync(join(outside, "host-secret"), join(root, "repo", "leak"));
    symlinkSync("/etc", join(root, "etc-link"));
    symlinkSync(outside, join(root, "outside-link"));
    const args = ["--sandbox-driver", "namespace", "--checkout-root", root];
    // One after the other: two drivers staging the same image at once would race.
    serve = await startServe({ seed: ACTIVATION_SEED, args });
    bare = await startServe({ seed: ACTIVATION_SEED, args: ["--sandbox-driver", "namespace"] });
  }, 120_000);

  afterAll(async () => {
    await serve?.stop();
    await bare?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it.each([
    ["/etc", () => "/etc"],
    ["the service's data folder", () => dirname(serve.dbPath)],
    ["a link in the root leading to /etc", () => join(root, "etc-link")],
    ["a link in the root leading out of it", () => join(root, "outside-link")],
    ["a path climbing out with ..", () => join(root, "repo", "..", "..", "outside")],
    ["the root's parent", () => join(root, "..")],
  ])("refuses %s with 400", async (_what, path) => {
    const response = await create(serve, path());
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; reason: string };
    expect(body.error).toBe("invalid_request");
    expect(body.reason).toContain("checkout");
  });

  it("refuses every checkout with 400 naming the flag when no root is configured", async () => {
    const response = await create(bare, join(root, "repo"));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { reason: string }).reason).toContain("--checkout-root");
  });

  it("copies a checkout under the root; a link in it to a host file arrives as a link and reads nothing", async () => {
    const engagementId = engagement();
    const response = await serve.admin(ADMIN_PATHS.sandboxes, {
      ...OWNER,
      engagementId,
      repository: "acme/api",
      checkout: join(root, "repo"),
    });
    expect(response.status).toBe(201);
    const { sandboxId } = (await response.json()) as { sandboxId: string };
    const exec = await serve.admin(ADMIN_PATHS.sandboxExec.replace(":id", sandboxId), {
      ...OWNER,
      engagementId,
      command: [
        "bash",
        "-c",
        "cd ~/checkouts/acme/api && head -1 scripts/start.sh && readlink leak; cat leak 2>&1; true",
      ],
      timeoutSeconds: 60,
    });
    expect(exec.status).toBe(200);
    const result = (await exec.json()) as { exitCode: number; stdout: string };
    expect(result.stdout).toContain("#!/bin/sh");
    expect(result.stdout).toContain(join(outside, "host-secret")); // the link's target text, not its content
    expect(result.stdout).not.toContain(canary);
    expect(serve.output()).not.toContain(canary);
  });

  it.each([
    ["its own data folder", (data: string) => data],
    ["a folder holding the data folder", (data: string) => dirname(data)],
    ["a folder inside the data folder", (data: string) => join(data, "inside")],
  ])("baton serve refuses a checkout root that is %s (exit 1, naming the flag)", async (_what, rootOf) => {
    const data = join(tmp, `data-${randomBytes(3).toString("hex")}`, "baton");
    mkdirSync(join(data, "inside"), { recursive: true });
    const run = await runBaton(
      ["serve", "--port", "0", "--db", join(data, "baton.sqlite"), "--checkout-root", rootOf(data)],
      { env: { ...process.env, BATON_LOG_LEVEL: "" }, timeout: 30_000 },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("--checkout-root");
  });
});

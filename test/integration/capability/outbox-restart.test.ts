// The outbox is durable: a request recorded while the service has no SMTP relay keeps its e-mail queued in the
// SQLite file; after a restart with --smtp-url the queued e-mail goes out, once per owner/admin.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBaton } from "../../helpers/cli.js";
import { createSandbox, killLeftoverServes, type ServeHandle, startServe } from "../../helpers/serve.js";
import { startSmtpServer, type TestSmtpServer } from "../../helpers/smtp.js";
import { SEED, SERVE_LOG, until } from "./harness.js";

let dir: string | undefined;
let smtp: TestSmtpServer | undefined;
let serve: ServeHandle | undefined;
afterEach(async () => {
  await serve?.stop();
  await killLeftoverServes();
  await smtp?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  serve = undefined;
  smtp = undefined;
  dir = undefined;
});

describe("durable e-mail outbox", () => {
  it("e-mail queued without a relay is delivered after a restart with --smtp-url; SIGTERM exits 0", async () => {
    dir = await mkdtemp(join(tmpdir(), "baton-cap-restart-"));
    const seed = join(dir, "seed.json");
    await writeFile(seed, JSON.stringify(SEED));
    const dbPath = join(dir, "serve.sqlite");
    serve = await startServe({ db: dbPath, seed, env: SERVE_LOG });
    const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_restart" });
    const run = await runBaton(
      [
        "env",
        "request-capability",
        "--repo",
        "acme/api",
        "--capability",
        "data_access",
        "--target",
        "warehouse.acme.test",
        "--reason",
        "reports need read access",
      ],
      { env: sandbox.env },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    const id = /request (cr_[0-9a-f]+)/.exec(run.stdout)![1]!;
    const shown = await runBaton(["op", "get", id, "--json"], { env: sandbox.env });
    const view = JSON.parse(shown.stdout) as { notifications: { deliveries: { state: string }[] }[] };
    expect(view.notifications[0]!.deliveries.map((d) => d.state)).toEqual(["pending", "pending"]);
    expect(await serve.stop()).toBe(0);

    smtp = await startSmtpServer();
    serve = await startServe({ db: dbPath, args: ["--smtp-url", smtp.url], env: SERVE_LOG });
    await until(() => smtp!.received.length === 2, "the queued e-mails");
    expect(smtp.received.map((m) => m.to[0]).sort()).toEqual(["admin@acme.test", "owner@acme.test"]);
    expect(smtp.received.every((m) => m.decoded.includes(id))).toBe(true);
    expect(await serve.stop()).toBe(0);
    serve = undefined;
  });
});

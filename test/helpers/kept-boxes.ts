// A real `baton serve` on the namespace driver holding one box, for tests of what happens to the boxes a stopped
// service keeps (a deploy keeps them; `baton admin prune-sandboxes` removes them). The namespace driver is the
// cheapest real one: no image build, the root filesystem the test run's setup already made.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN_PATHS, HEADERS } from "../../src/transport/wire.js";
import { runBaton } from "./cli.js";
import { ACTIVATION_SEED, killLeftoverServes, type ServeHandle, startServe } from "./serve.js";

const dirs: string[] = [];

/** Starts a service in a fresh folder (named after `prefix`) and makes one box; `ref` is the box's folder. */
export async function serveWithOneBox(
  prefix: string,
  engagementId: string,
): Promise<{ serve: ServeHandle; ref: string }> {
  const dir = await mkdtemp(join(tmpdir(), `baton-${prefix}-`));
  dirs.push(dir);
  const serve = await startServe({ dir, seed: ACTIVATION_SEED, args: ["--sandbox-driver", "namespace"] });
  const made = (await (
    await serve.admin(ADMIN_PATHS.sandboxes, { workspaceId: "ws_acme", engagementId })
  ).json()) as { sandboxId: string };
  const view = (await (
    await fetch(new URL(ADMIN_PATHS.sandbox.replace(":id", made.sandboxId), serve.adminUrl), {
      headers: { [HEADERS.adminToken]: serve.adminToken },
    })
  ).json()) as { ref: string };
  return { serve, ref: view.ref };
}

/** For afterEach: stops what a test left running and removes its boxes and folders, whatever a failure left. */
export async function removeKeptBoxes(): Promise<void> {
  await killLeftoverServes();
  for (const dir of dirs.splice(0)) {
    await runBaton([
      "admin",
      "prune-sandboxes",
      "--sandbox-driver",
      "namespace",
      "--db",
      join(dir, "serve.sqlite"),
    ]);
    await rm(dir, { recursive: true, force: true });
  }
}

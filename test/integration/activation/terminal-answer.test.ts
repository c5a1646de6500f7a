// When the service answers the start with an operation that has already finished (status 202, same document,
// state terminal), the CLI does not poll; when that answer carries the overlay, the POST is the only request. A
// scripted loopback server stands in for `baton serve` because whether the real one can answer that way depends
// on its worker's timing, and because older services answer without the overlay.

import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PATHS } from "../../../src/transport/wire.js";
import { runBaton } from "../../helpers/cli.js";

let server: Server | undefined;
let home: string | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  if (home) await rm(home, { recursive: true, force: true });
  server = home = undefined;
});

const now = new Date().toISOString();
function operation(state: "pending" | "succeeded") {
  return {
    id: "op_1",
    kind: "env.activate",
    state,
    repository: "acme/api",
    createdAt: now,
    updatedAt: now,
    finishedAt: state === "succeeded" ? now : null,
    result:
      state === "succeeded"
        ? {
            overlayRevision: 1,
            variables: [{ repository: "acme/api", name: "A", assigned: "A", source: "sandbox.env" }],
            requestId: null,
            managedStartup: null,
          }
        : null,
    error: null,
  };
}
const overlay = {
  revision: 1,
  repositories: [
    {
      repository: "acme/api",
      repositoryId: "repo_1",
      variables: [{ name: "A", assigned: "A", value: "1", source: "sandbox.env" }],
    },
  ],
};

async function startService(
  postState: "pending" | "succeeded",
  { carryOverlay = false } = {},
): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      if (req.method === "POST") {
        const answer = carryOverlay ? { ...operation(postState), overlay } : operation(postState);
        res.writeHead(202).end(JSON.stringify(answer));
      } else if (req.url === PATHS.operationOverlay("op_1")) {
        res.writeHead(200).end(JSON.stringify(overlay));
      } else {
        res.writeHead(200).end(JSON.stringify(operation("succeeded")));
      }
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

async function activate(url: string) {
  home = await mkdtemp(join(tmpdir(), "baton-terminal-"));
  await mkdir(join(home, "checkouts", "acme", "api"), { recursive: true });
  return runBaton(["env", "activate", "acme/api", "--json"], {
    env: { HOME: home, BATON_OPS_URL: url, BATON_TURN_TOKEN: "turn", BATON_SANDBOX_LEASE: "lease" },
  });
}

describe("a terminal answer to the start skips the poll", () => {
  it("202 with a succeeded operation carrying its overlay: the POST is the only request", async () => {
    const { url, seen } = await startService("succeeded", { carryOverlay: true });
    const run = await activate(url);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(seen).toEqual([`POST ${PATHS.operations}`]);
    expect(readFileSync(join(home!, ".baton", "environment.sh"), "utf8")).toContain("A=");
    // The --json document is the operation and what was written, never the carried overlay.
    expect(JSON.parse(run.stdout)).not.toHaveProperty("overlay");
  });

  it("202 with a succeeded operation from a service that does not carry the overlay: POST, then the overlay", async () => {
    const { url, seen } = await startService("succeeded");
    const run = await activate(url);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(seen).toEqual([`POST ${PATHS.operations}`, `GET ${PATHS.operationOverlay("op_1")}`]);
    expect(existsSync(join(home!, ".baton", "environment.sh"))).toBe(true);
  });

  it("202 with a pending operation: the client long-polls before fetching the overlay", async () => {
    const { url, seen } = await startService("pending");
    const run = await activate(url);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(seen).toEqual([
      `POST ${PATHS.operations}`,
      `GET ${PATHS.operation("op_1")}?waitMs=25000`,
      `GET ${PATHS.operationOverlay("op_1")}`,
    ]);
  });
});

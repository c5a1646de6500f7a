// The minimal agent program that docs/api.md shows ("A minimal agent program"), copied from the docs as written and
// run by a real `baton serve --agent-command` in a real box on each driver: the example must work where an agent
// program runs (issue 37 A5: it used jq, which the sandbox image does not have).
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { API_PATHS } from "../../src/server/surfaces/api/wire.js";
import { PROJECT_ROOT } from "../helpers/cli.js";
import { extractBlocks } from "../helpers/doc-blocks.js";
import { pollUntil } from "../helpers/poll.js";
import { DRIVERS } from "../helpers/sandbox-drivers.js";
import { killLeftoverServes, startServe } from "../helpers/serve.js";

const dirs: string[] = [];
afterEach(async () => {
  await killLeftoverServes();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function documentedAgentProgram(): Promise<string> {
  const markdown = await readFile(join(PROJECT_ROOT, "docs", "api.md"), "utf8");
  const after = markdown.indexOf("A minimal agent program");
  expect(after, "docs/api.md has a minimal agent program").toBeGreaterThan(0);
  const block = extractBlocks(markdown.slice(after))[0];
  expect(block?.code.startsWith("#!/usr/bin/env bash")).toBe(true);
  return `${block!.code}\n`;
}

describe.each(DRIVERS)("the documented minimal agent program on the %s driver", (driver) => {
  it("answers a task in a real box as the docs say", { timeout: 300_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), "baton-docs-agent-"));
    dirs.push(dir);
    const agent = join(dir, "my-agent");
    await writeFile(agent, await documentedAgentProgram());
    await chmod(agent, 0o755);
    const token = "btn_docs-agent-member-7f3c91d2a4b6e8f0";
    await writeFile(
      join(dir, "seed.json"),
      JSON.stringify({
        workspaces: [
          {
            id: "ws_docs",
            name: "Docs",
            rollout: { repositoryEnvironments: true },
            members: [{ email: "dev@docs.test", role: "member", token }],
            repositories: [
              {
                repository: "acme/api",
                environment: { versionId: "envv_docs_1", readiness: { checks: [] } },
              },
            ],
          },
        ],
      }),
    );
    const serve = await startServe({
      dir,
      seed: join(dir, "seed.json"),
      args: ["--sandbox-driver", driver, "--agent-command", agent],
    });
    const api = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(new URL(path, serve.url), {
        ...init,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      });
      return (await response.json()) as Record<string, unknown>;
    };
    const started = await api(API_PATHS.tasks("ws_docs"), {
      method: "POST",
      body: JSON.stringify({ prompt: "activate the environment", repo: "acme/api" }),
    });
    const taskId = (started.task as { id: string } | undefined)?.id;
    expect(taskId, JSON.stringify(started)).toMatch(/./);
    const messages = await pollUntil(
      async () =>
        ((await api(API_PATHS.messages("ws_docs", taskId!))).messages ?? []) as {
          role: string;
          body: string;
        }[],
      (list) => list.some((message) => message.role !== "user"),
      { timeoutMs: 240_000 },
    );
    expect(
      messages.filter((message) => message.role !== "user").map((message) => message.body),
      serve.output(),
    ).toEqual(["Activated acme/api."]);
  });
});

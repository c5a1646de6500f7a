// The sandbox image's agents layer on both real drivers (issue 34 point 2; the compile cache is issue 34's start
// time): the agents' packages and their compile cache are readable and runnable by the box's user and writable by
// no one in the box, and the cache the image build made is the one an agent's Node accepts in a box (made at the
// box's path and with its Node, linked by the turn's set-up under the box's own uid), so Claude Code's CLI does not
// compile its bundle again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareBoxTurn } from "../../../src/server/adapters/agents/acp/box-workspace.js";
import {
  AGENT_CATALOG,
  AGENTS_COMPILE_CACHE,
  AGENTS_IN_BOX,
  catalogAgentOptions,
} from "../../../src/server/adapters/agents/catalog.js";
import type { CreatedBox, SandboxDriver } from "../../../src/server/adapters/sandboxes/driver.js";
import { boxName, DRIVERS, makeDriver, sandboxImage } from "../../helpers/sandbox-drivers.js";

const signal = new AbortController().signal;
const fail = (): never => {
  throw new Error("the catalog is empty");
};
const CLAUDE_CLI = `${AGENTS_IN_BOX}/claude-code/node_modules/@anthropic-ai/claude-agent-sdk/cli.js`;

describe.each(DRIVERS)("the agents layer in a %s box", (driverName) => {
  let driver: SandboxDriver;
  let created: CreatedBox;
  const run = (script: string, env: Record<string, string> = {}) =>
    driver.exec(created.ref, ["bash", "-c", script], { timeoutMs: 60_000, env });

  beforeAll(async () => {
    driver = await makeDriver(driverName, {});
    created = await driver.create({ name: boxName(), image: sandboxImage(), env: {} });
  }, 60_000);

  afterAll(async () => {
    await driver?.close();
  });

  it("holds a compile cache Claude Code's CLI accepts once the turn's set-up linked it for the box's uid", async () => {
    for (const entry of AGENT_CATALOG)
      expect(catalogAgentOptions(entry).boxAgent.compileCache).toBe(AGENTS_COMPILE_CACHE);
    const box = {
      exec: driver.exec.bind(driver, created.ref),
      spawn: driver.spawn.bind(driver, created.ref),
      programPath: () => undefined,
      home: driver.home,
    };
    const setup = {
      ...catalogAgentOptions(AGENT_CATALOG[0] ?? fail()).boxAgent,
      keyVariable: "TEST_AGENT_API_KEY",
      files: [],
    };
    const ready = await prepareBoxTurn(box, { TEST_AGENT_API_KEY: "placeholder" }, "", setup, signal);
    expect(ready).toEqual({
      kind: "ready",
      env: { NODE_COMPILE_CACHE: `${driver.home}/.baton/compile-cache` },
    });
    const env = ready.kind === "ready" ? ready.env : {};
    const result = await run(`node ${CLAUDE_CLI} --version`, { ...env, NODE_DEBUG_NATIVE: "COMPILE_CACHE" });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/\(Claude Code\)/);
    expect(result.stderr).toContain(`cache for file://${CLAUDE_CLI} was accepted`);
  });

  it("lets no one in the box write to the agents or their cache", async () => {
    const listed = await run(`ls -d ${AGENTS_COMPILE_CACHE}/*/ && ls ${AGENTS_COMPILE_CACHE}/*/ | head -1`);
    const [versionDir, entry] = listed.stdout.trim().split("\n");
    expect(versionDir).toMatch(/-1000\/$/); // made as the box's user, whose uid the folder's name carries
    for (const folder of [AGENTS_IN_BOX, AGENTS_COMPILE_CACHE, versionDir, `${AGENTS_IN_BOX}/claude-code`]) {
      const planted = await run(`touch ${folder}/planted`);
      expect(planted.exitCode, `${folder} is writable`).not.toBe(0);
    }
    const overwritten = await run(`printf x > ${versionDir}${entry}`);
    expect(overwritten.exitCode, "a cache entry is writable").not.toBe(0);
  });
});

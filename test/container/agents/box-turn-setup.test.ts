// A turn's set-up in a box, in the one exec it takes on both real drivers: the task's checkout cloned and put on the
// task's branch (found, not re-cloned, the next time), the turn-requests file emptied, a catalog agent's key checked
// and its files and the proxy's CA written. The "code host" is a bare repository in the box (a file URL) and the
// "proxy" a Node listener in the box serving a PEM: the set-up's own steps are what is under test here; the real
// code host and proxy are in real-agents-docker.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareBoxTurn } from "../../../src/server/adapters/agents/acp/box-workspace.js";
import type { SandboxBox } from "../../../src/server/adapters/agents/port.js";
import type { CreatedBox, SandboxDriver } from "../../../src/server/adapters/sandboxes/driver.js";
import { boxName, DRIVERS, makeDriver, sandboxImage } from "../../helpers/sandbox-drivers.js";

const PEM = "-----BEGIN CERTIFICATE-----\nMIIBbaton\n-----END CERTIFICATE-----\n";
const AGENT = {
  agentName: "Test Agent",
  keyVariable: "TEST_AGENT_API_KEY",
  modelHost: "api.model.test",
  files: [{ path: ".test-agent/config.toml", content: 'model = "small"\n' }],
  caVariables: ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE"],
};

describe.each(DRIVERS)("a turn's set-up in a %s box", (driverName) => {
  let driver: SandboxDriver;
  let created: CreatedBox;
  const boxAt = (checkout: string): SandboxBox => ({
    exec: (argv, options) => driver.exec(created.ref, argv, options),
    spawn: (argv, options) => driver.spawn(created.ref, argv, options),
    programPath: () => undefined,
    home: driver.home,
    checkout,
  });
  const run = async (script: string) => {
    const result = await driver.exec(created.ref, ["bash", "-c", script], { timeoutMs: 30_000 });
    if (result.exitCode !== 0) throw new Error(`${script}: ${result.stderr}`);
    return result.stdout.trim();
  };
  const signal = new AbortController().signal;

  beforeAll(async () => {
    driver = await makeDriver(driverName, {});
    created = await driver.create({ name: boxName(), image: sandboxImage(), env: {} });
    await run(
      [
        "git init -q --bare -b main /tmp/origin.git",
        "git init -q -b main /tmp/seed && cd /tmp/seed && echo Hello. > README.md",
        "git add -A && git -c user.name=T -c user.email=t@acme.test commit -qm readme",
        "git push -q /tmp/origin.git main",
      ].join(" && "),
    );
  }, 60_000);

  afterAll(async () => {
    await driver?.close();
  });

  it("clones the checkout onto the task's branch and empties the turn-requests file", async () => {
    const box = boxAt(`${driver.home}/checkouts/acme/api`);
    const env = { BATON_GIT_URL: "file:///tmp/origin.git" };
    expect(await prepareBoxTurn(box, env, "baton/t1", undefined, signal)).toEqual({ kind: "ready", env: {} });
    expect(await run(`git -C ${box.checkout} rev-parse --abbrev-ref HEAD`)).toBe("baton/t1");
    // The agent's work in progress and an earlier turn's requests.
    await run(`echo wip >> ${box.checkout}/README.md && echo stale > ~/.baton/turn-requests.jsonl`);
    expect((await prepareBoxTurn(box, env, "baton/t1", undefined, signal)).kind).toBe("ready");
    expect(await run(`cat ${box.checkout}/README.md`)).toBe("Hello.\nwip");
    expect(await run("wc -c < ~/.baton/turn-requests.jsonl")).toBe("0");
    expect(await run("stat -c %a ~/.baton/turn-requests.jsonl")).toBe("600");
  });

  it("says the checkout failed, with git's reason, when the repository cannot be cloned", async () => {
    const box = boxAt(`${driver.home}/checkouts/acme/missing`);
    const ready = await prepareBoxTurn(
      box,
      { BATON_GIT_URL: "file:///tmp/no-such-origin.git" },
      "baton/t2",
      AGENT,
      signal,
    );
    expect(ready.kind).toBe("failed");
    expect(ready.kind === "failed" && ready.reason).toMatch(
      /^the task's checkout could not be made in the box: .*no-such-origin/s,
    );
  });

  it("pauses on a missing key after making the checkout", async () => {
    const box = boxAt(`${driver.home}/checkouts/acme/nokey`);
    const env = { BATON_GIT_URL: "file:///tmp/origin.git" };
    expect(await prepareBoxTurn(box, env, "baton/t3", AGENT, signal)).toEqual({ kind: "missing_key" });
    expect(await run(`git -C ${box.checkout} rev-parse --abbrev-ref HEAD`)).toBe("baton/t3");
  });

  it("writes the agent's files and the proxy's CA, and names them in the agent's variables", async () => {
    const server = await driver.spawn(
      created.ref,
      [
        "/usr/local/bin/node",
        "-e",
        `require("node:http").createServer((q, s) => s.end(q.url === "/ca.pem" ? ${JSON.stringify(PEM)} : "no"))` +
          '.listen(18931, "127.0.0.1", () => console.log("listening"))',
      ],
      {},
    );
    try {
      const reader = server.stdout.getReader();
      await reader.read();
      reader.releaseLock();
      const box = boxAt(`${driver.home}/checkouts/acme/keyed`);
      const env = {
        BATON_GIT_URL: "file:///tmp/origin.git",
        BATON_PROXY_URL: "http://127.0.0.1:18931",
        TEST_AGENT_API_KEY: "baton-placeholder-key",
      };
      const home = driver.home;
      expect(await prepareBoxTurn(box, env, "baton/t4", AGENT, signal)).toEqual({
        kind: "ready",
        env: {
          NODE_EXTRA_CA_CERTS: `${home}/.baton/proxy-ca.pem`,
          SSL_CERT_FILE: `${home}/.baton/ca-bundle.pem`,
        },
      });
      expect(await run("cat ~/.test-agent/config.toml")).toBe('model = "small"');
      expect(await run("cat ~/.baton/proxy-ca.pem")).toBe(PEM.trim());
      // The bundle is the system's CAs and the proxy's.
      expect(await run("grep -c 'BEGIN CERTIFICATE' ~/.baton/ca-bundle.pem")).not.toBe("1");
      expect(await run("tail -n 3 ~/.baton/ca-bundle.pem")).toBe(PEM.trim());
    } finally {
      await server.kill();
    }
  });
});

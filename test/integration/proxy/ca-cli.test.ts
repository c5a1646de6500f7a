// The proxy's CA on disk: created at first start (files 0600, folder 0700), printed by `baton proxy ca`, replaced
// by `baton proxy rotate-ca`; a key file others can read is refused.
import { chmod, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOrCreateCa } from "../../../src/proxy/ca/authority.js";
import { runBaton } from "../../helpers/cli.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "proxy-ca-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the proxy's CA", () => {
  it("baton proxy ca before any CA exists says how to make one (exit 1)", async () => {
    const run = await runBaton(["proxy", "ca", "--state-dir", join(dir, "none")]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("start baton proxy once");
  });

  it("is created 0600 in a 0700 folder, printed, and replaced on rotate-ca", async () => {
    const state = join(dir, "state");
    const created = await loadOrCreateCa(state);
    expect(created.created).toBe(true);
    expect((await stat(state)).mode & 0o777).toBe(0o700);
    for (const file of ["ca.pem", "ca-key.pem"])
      expect((await stat(join(state, file))).mode & 0o777).toBe(0o600);
    const printed = await runBaton(["proxy", "ca", "--state-dir", state]);
    expect(printed.stdout).toBe(created.certPem);
    const before = JSON.parse((await runBaton(["proxy", "ca", "--state-dir", state, "--json"])).stdout) as {
      sha256: string;
      subject: string;
    };
    expect(before.subject).toContain("Baton egress proxy CA");
    const rotated = await runBaton(["proxy", "rotate-ca", "--state-dir", state, "--json"]);
    expect(rotated.exitCode).toBe(0);
    const after = JSON.parse(rotated.stdout) as { sha256: string };
    expect(after.sha256).not.toBe(before.sha256);
    expect((await loadOrCreateCa(state)).created).toBe(false);
    const human = await runBaton(["proxy", "rotate-ca", "--state-dir", state]);
    expect(human.stdout).toContain("kill -HUP");
    // The key never appears in what the commands print.
    expect(printed.stdout + rotated.stdout + human.stdout).not.toContain("PRIVATE KEY");
  });

  it("a CA key others can read stops the proxy, naming the chmod", async () => {
    const state = join(dir, "loose");
    await loadOrCreateCa(state);
    await chmod(join(state, "ca-key.pem"), 0o644);
    await expect(loadOrCreateCa(state)).rejects.toThrow(`chmod 600 ${join(state, "ca-key.pem")}`);
  });
});

// `baton serve` checks every flag before it opens the store or listens: a bad one is exit 1 naming the flag and
// what to fix, with nothing on stdout (it never printed a listening line). A URL flag's value is never echoed:
// it may carry a password.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBaton } from "../../helpers/cli.js";

const CANARY = "canary-smtp-password-4e1b7c90";
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "baton-serve-flags-"));
  await mkdir(join(dir, "a-folder"));
  await writeFile(join(dir, "broken-seed.json"), "{ not json");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// `{dir}` stands for a temporary folder made before the cases run.
const CASES: [flag: string, value: string, says: string][] = [
  ["--host", "not a host!", "--host must be an IP address or a host name to listen on"],
  ["--host", "", "--host must be an IP address or a host name to listen on"],
  ["--port", "70000", "option '--port <port>' argument '70000' is invalid. must be 0 to 65535"],
  ["--port", "0x50", "option '--port <port>' argument '0x50' is invalid. must be 0 to 65535"],
  ["--lease-seconds", "1", "argument '1' is invalid. must be a whole number of seconds from 3 to 3600"],
  ["--lease-seconds", "3601", "argument '3601' is invalid. must be a whole number of seconds from 3 to 3600"],
  ["--db", "", "--db must be a file path"],
  ["--db", "{dir}/a-folder", "; check --db"],
  ["--seed", "{dir}/no-such-seed.json", "check --seed (the path and its syntax)"],
  ["--seed", "{dir}/broken-seed.json", "check --seed (the path and its syntax)"],
  ["--smtp-url", "not-a-url", "--smtp-url must be a smtp:// or smtps:// URL with a host"],
  ["--smtp-url", "http://relay.test:25", "--smtp-url must be a smtp:// or smtps:// URL with a host"],
  ["--smtp-url", `smtp://user:${CANARY}@`, "--smtp-url must be a smtp:// or smtps:// URL with a host"],
  ["--matcher-url", "not-a-url", "--matcher-url must be a http:// or https:// URL with a host"],
  ["--matcher-url", "ftp://matcher.test/", "--matcher-url must be a http:// or https:// URL with a host"],
  ["--dashboard-url", "dashboard", "--dashboard-url must be a http:// or https:// URL with a host"],
  ["--sandbox-driver", "podman", "--sandbox-driver must be docker, namespace or none"],
  ["--sandbox-image", "not an image", "--sandbox-image must be an image name"],
  ["--sandbox-proxy", "http://127.0.0.1:8081", "--sandbox-proxy must be host:port"],
  ["--ops-listen", "8181", "--ops-listen must be host:port, e.g. 127.0.0.1:8181"],
  ["--ops-listen", "127.0.0.1:70000", "--ops-listen must have a port 0 to 65535"],
  ["--admin-listen", "http://127.0.0.1:8182", "--admin-listen must be host:port, e.g. 127.0.0.1:8182"],
  ["--trusted-proxy", "caddy.internal", "--trusted-proxy must be the front's IP address or a CIDR range"],
  ["--trusted-proxy", "10.0.0.0/33", "--trusted-proxy must be the front's IP address or a CIDR range"],
];

describe("baton serve flags", () => {
  it.each(CASES)("%s %j: exit 1 before listening, naming the flag and the fix", async (flag, value, says) => {
    const run = await runBaton(
      ["serve", "--port", "0", "--db", join(dir, "serve.sqlite"), flag, value.replace("{dir}", dir)],
      {
        timeout: 20_000,
      },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(says);
    expect(run.stderr).not.toContain(CANARY);
  });
});

// `startSandbox`'s options as a repository's CI would pass them: `image` is the image the box runs, `sandboxEnv`
// is the box's own environment (a new login shell sees it), `baton proxy` starts without being asked (its CA in
// the test's temporary folder, not the user's data folder) and answers the box, and `proxy: false` starts none.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BatonSandbox, startSandbox } from "../../../src/testing/index.js";
import { sandboxImage } from "../../helpers/sandbox-drivers.js";
import { FIXTURES } from "../../helpers/serve.js";

// Spaces, a dollar sign and quotes: the value must arrive as written, not expanded or split by a shell.
const GREETING = `two words, a $dollar and 'quotes' ${randomBytes(3).toString("hex")}`;

describe("startSandbox options (baton/testing)", () => {
  const image = `baton-sandbox-test:testing-image-${randomBytes(4).toString("hex")}`;
  const xdgDataHome = mkdtempSync(join(tmpdir(), "baton-testing-xdg-"));
  let withProxy: BatonSandbox;
  let withoutProxy: BatonSandbox;

  beforeAll(async () => {
    execFileSync("docker", ["tag", sandboxImage(), image]);
    [withProxy, withoutProxy] = await Promise.all([
      startSandbox({
        checkout: join(FIXTURES, "repos", "acme-api"),
        repository: "acme/api",
        image,
        sandboxEnv: { GREETING },
        serviceEnv: { XDG_DATA_HOME: xdgDataHome },
      }),
      startSandbox({ checkout: join(FIXTURES, "repos", "acme-api"), repository: "acme/api", proxy: false }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([withProxy?.stop(), withoutProxy?.stop()]);
    execFileSync("docker", ["rmi", image], { stdio: "ignore" });
    rmSync(xdgDataHome, { recursive: true, force: true });
  });

  it("`image` is the image the box runs: the service's record and the container say so", () => {
    expect(withProxy.box.image).toBe(image);
    const inspected = execFileSync("docker", ["inspect", "-f", "{{.Config.Image}}", withProxy.containerId], {
      encoding: "utf8",
    });
    expect(inspected.trim()).toBe(image);
    expect(withoutProxy.box.image).not.toBe(image); // without it, the default image
  });

  it("`sandboxEnv` is in the box's environment: a new login shell (no BASH_ENV) sees it as written", async () => {
    expect(withProxy.env.GREETING).toBe(GREETING);
    const login = await withProxy.exec([
      "env",
      "-u",
      "BASH_ENV",
      "bash",
      "-lc",
      'printf "%s\\n" "$GREETING"',
    ]);
    expect(login).toMatchObject({ exitCode: 0, stdout: `${GREETING}\n` });
  });

  it("`baton proxy` starts by default and answers the box: loopback through it is refused with its error", async () => {
    expect(withProxy.proxyUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(withProxy.env.BATON_PROXY_URL).toMatch(/^http:\/\//);
    // The box's own HTTP(S)_PROXY carries its lease as the password, which the proxy checks with the service (the
    // shared BATON_PROXY_TOKEN); NO_PROXY leaves loopback direct, so --noproxy "" sends it through the proxy.
    const refused = await withProxy.exec(
      'curl -s --noproxy "" --max-time 20 -o /dev/null -D - http://127.0.0.1:1/ | tr -d "\\r" | grep -i "^baton-proxy-error"',
    );
    expect(refused.stdout.trim()).toBe("baton-proxy-error: destination_denied");
    // Its CA went to the test's temporary folder, not $XDG_DATA_HOME/baton/proxy.
    expect(existsSync(join(xdgDataHome, "baton"))).toBe(false);
  });

  it("`proxy: false` starts no proxy: the box gets no proxy variables and is still usable", async () => {
    expect(withoutProxy.proxyUrl).toBeNull();
    expect(withoutProxy.env).not.toHaveProperty("BATON_PROXY_URL");
    const shell = await withoutProxy.exec('echo "[$BATON_PROXY_URL$HTTPS_PROXY$HTTP_PROXY]"');
    expect(shell).toMatchObject({ exitCode: 0, stdout: "[]\n" });
  });
});

// Namespace boxes run as host users of their own (issue 21 item 9) and keep no credential in host files (item 7):
// real bubblewrap boxes in network namespaces. Two boxes get different uids from the range, neither an existing
// account; a file one box writes is unreadable to the other's uid on the host; the driver's state folder holds
// neither the turn token nor the lease, while commands in the box still get both.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedBox, SandboxDriver } from "../../../src/server/adapters/sandboxes/driver.js";
import { parseUidRange } from "../../../src/server/adapters/sandboxes/drivers/box-uids.js";
import { createNamespaceDriver } from "../../../src/server/adapters/sandboxes/drivers/namespace.js";
import { buildBoxEnvironment } from "../../../src/server/adapters/sandboxes/environment.js";
import { resolveSandboxImage } from "../../../src/server/adapters/sandboxes/image.js";
import { runBaton } from "../../helpers/cli.js";
import { boxName } from "../../helpers/sandbox-drivers.js";

const RANGE = "200000-265535";

/** Every file under `dir`, with its text (the state folder is small: box folders and their homes). */
function filesUnder(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.name === "images") continue; // the staged image, shared and read-only
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push({ path, text: readFileSync(path, "latin1") });
  }
  return out;
}

const accountIds = () =>
  new Set(
    readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .filter((line) => line.includes(":"))
      .map((line) => Number(line.split(":")[2])),
  );

describe("namespace boxes: a host uid of their own, no credential in host files", () => {
  const stateDir = mkdtempSync(join(tmpdir(), "baton-box-users-"));
  const turnToken = `btt_cAnArY${randomBytes(16).toString("hex")}`;
  const lease = `btl_cAnArY${randomBytes(16).toString("hex")}/+=`;
  let driver: SandboxDriver;
  let first: CreatedBox;
  let second: CreatedBox;

  beforeAll(async () => {
    const image = resolveSandboxImage();
    driver = await createNamespaceDriver({
      endpoints: {},
      rootfs: image.rootfs,
      batonDir: image.batonDir,
      stateDir,
      uids: parseUidRange(RANGE),
    });
    const spec = () => ({
      name: boxName(),
      image: "unused",
      // The manager's builder: the credentials, and the proxy URLs carrying the lease.
      env: (reach: CreatedBox["reach"]) =>
        buildBoxEnvironment({
          reach: { ...reach, proxy: "100.72.0.1:3128", ops: "100.72.0.1:8080" },
          turnToken,
          lease,
          sandboxEnv: { PLAIN: "kept" },
          secrets: [],
        }),
    });
    first = await driver.create(spec());
    second = await driver.create(spec());
  }, 120_000);

  afterAll(async () => {
    await driver?.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  const hostUidOf = (box: CreatedBox) => statSync(join(box.ref, "home")).uid;

  it("gives two boxes different uids from the range, neither an existing account", () => {
    const [a, b] = [hostUidOf(first), hostUidOf(second)];
    expect(a).not.toBe(b);
    const range = parseUidRange(RANGE);
    const accounts = accountIds();
    for (const uid of [a, b]) {
      expect(uid).toBeGreaterThanOrEqual(range.first);
      expect(uid).toBeLessThanOrEqual(range.last);
      expect(accounts.has(uid)).toBe(false);
    }
  });

  it("a file one box writes is not readable by the other box's uid", async () => {
    const wrote = await driver.exec(first.ref, ["bash", "-c", "echo private > ~/mine; id -u"], {
      timeoutMs: 30_000,
    });
    expect(wrote).toMatchObject({ exitCode: 0, stdout: "1000\n" }); // the agent inside, whoever it is outside
    const other = hostUidOf(second);
    const read = await execa(
      "setpriv",
      [`--reuid=${other}`, `--regid=${other}`, "--clear-groups", "cat", join(first.ref, "home", "mine")],
      { reject: false },
    );
    expect(read.exitCode).not.toBe(0);
    expect(read.stdout).not.toContain("private");
    // Its own uid reads it: the refusal is about the user, not a missing file.
    const own = hostUidOf(first);
    const mine = await execa(
      "setpriv",
      [`--reuid=${own}`, `--regid=${own}`, "--clear-groups", "cat", join(first.ref, "home", "mine")],
      { reject: false },
    );
    expect(mine.stdout).toBe("private");
  });

  it("keeps the turn token and the lease out of every host file of the driver, while commands get both", async () => {
    const inBox = await driver.exec(
      first.ref,
      ["bash", "-c", 'printf "%s\\n%s\\n%s\\n" "$BATON_TURN_TOKEN" "$BATON_SANDBOX_LEASE" "$PLAIN"'],
      { timeoutMs: 30_000 },
    );
    expect(inBox.stdout).toBe(`${turnToken}\n${lease}\nkept\n`);
    const files = filesUnder(stateDir);
    expect(files.some((file) => file.path.endsWith("box.json"))).toBe(true);
    for (const file of files) {
      for (const secret of [turnToken, lease, encodeURIComponent(lease)]) {
        expect(file.text, file.path).not.toContain(secret);
      }
    }
  });

  it("frees a removed box's uid for the next box", async () => {
    const uid = hostUidOf(second);
    await driver.remove(second.ref);
    second = await driver.create({ name: boxName(), image: "unused", env: {} });
    expect(hostUidOf(second)).toBe(uid);
  });

  it("refuses a range that overlaps an existing account (the driver, and baton serve with exit 1)", async () => {
    const image = resolveSandboxImage();
    // nobody (65534) exists on every machine of this kind.
    await expect(
      createNamespaceDriver({
        endpoints: {},
        rootfs: image.rootfs,
        batonDir: image.batonDir,
        stateDir: join(stateDir, "other"),
        uids: parseUidRange("65000-66000"),
      }),
    ).rejects.toThrow(/--sandbox-uids 65000-66000 overlaps existing accounts \(.*nobody/);
    const run = await runBaton(
      [
        "serve",
        "--port",
        "0",
        "--db",
        ":memory:",
        "--sandbox-driver",
        "namespace",
        "--sandbox-uids",
        "65000-66000",
      ],
      { env: { ...process.env }, timeout: 60_000 },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("--sandbox-uids");
  });
});

// Which image folders the namespace driver's unprivileged box user can reach, and the staged copy it makes of
// those it cannot (real folders and modes; the test runs as root, so "reach" is judged from the mode bits).
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  canTraverse,
  reachableTree,
} from "../../../../../src/server/adapters/sandboxes/drivers/reachable-tree.js";

const UID = 1000;
const root = mkdtempSync(join(tmpdir(), "baton-sandbox-reach-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tree(name: string, parentMode: number): string {
  const parent = join(root, name);
  mkdirSync(join(parent, "image", "etc"), { recursive: true });
  writeFileSync(join(parent, "image", "etc", "hostname"), "baton-sandbox\n");
  chmodSync(join(parent, "image"), 0o755);
  chmodSync(parent, parentMode);
  return join(parent, "image");
}

describe("reachable image folders", () => {
  chmodSync(root, 0o755);

  it("a folder under searchable parents is used where it is", async () => {
    const image = tree("open", 0o711);
    expect(await canTraverse(image, UID)).toBe(true);
    expect(await reachableTree(image, UID, join(root, "staging-open"), "rootfs")).toBe(image);
  });

  it("a folder under a 0700 parent is staged once under the staging folder, with its files", async () => {
    const image = tree("private", 0o700);
    expect(await canTraverse(image, UID)).toBe(false);
    const staging = join(root, "staging-private");
    const staged = await reachableTree(image, UID, staging, "rootfs");
    expect(staged.startsWith(`${staging}/rootfs-`)).toBe(true);
    expect(await canTraverse(staged, UID)).toBe(true);
    expect(readFileSync(join(staged, "etc", "hostname"), "utf8")).toBe("baton-sandbox\n");
    expect(statSync(join(staged, "etc", "hostname")).ino).toBe(statSync(join(image, "etc", "hostname")).ino);
    expect(await reachableTree(image, UID, staging, "rootfs")).toBe(staged);
  });

  it("a parent the user owns needs its owner's search bit", async () => {
    const image = tree("owned", 0o700);
    expect(await canTraverse(image, statSync(join(root, "owned")).uid)).toBe(true);
  });

  it("drivers staging the same tree at once all get the whole tree (each stages into a draft of its own)", async () => {
    const image = tree("raced", 0o700);
    for (let i = 0; i < 300; i++) writeFileSync(join(image, "etc", `file-${i}`), `${i}\n`);
    const staging = join(root, "staging-raced");
    const staged = await Promise.all(
      Array.from({ length: 6 }, () => reachableTree(image, UID, staging, "baton")),
    );
    expect(new Set(staged).size).toBe(1);
    for (let i = 0; i < 300; i++)
      expect(readFileSync(join(staged[0]!, "etc", `file-${i}`), "utf8")).toBe(`${i}\n`);
    // No draft is left behind.
    expect(readdirSync(staging).filter((name) => name.includes(".draft-"))).toEqual([]);
  });

  it("staging another tree of the same label removes the older staging, not the new one", async () => {
    const staging = join(root, "staging-two");
    const first = await reachableTree(tree("first", 0o700), UID, staging, "baton");
    const second = await reachableTree(tree("second", 0o700), UID, staging, "baton");
    expect(existsSync(second)).toBe(true);
    expect(existsSync(first)).toBe(false);
  });
});

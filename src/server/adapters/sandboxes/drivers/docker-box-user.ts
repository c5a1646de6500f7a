// Gives a created Docker box, before it starts, a user of its own: the agent's account in the box's /etc/passwd and
// /etc/group renumbered to the box's uid, and the agent's home (whatever the image put there) owned by that uid with
// mode 0700. Archives only: no command runs in the box, and nothing runs there with privileges.
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { PassThrough, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type Docker from "dockerode";
import { execa } from "execa";
import { AGENT_HOME } from "../driver.js";
import { renumberAgent } from "./box-account.js";

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;

/** A path's archive from the box, or undefined when the image has no such path. */
async function archiveOf(container: Docker.Container, path: string): Promise<Readable | undefined> {
  try {
    return (await container.getArchive({ path })) as Readable;
  } catch (error) {
    if (statusOf(error) === 404) return undefined;
    throw error;
  }
}

/** A file's text from the box ("" when the image has none). */
async function readBoxFile(container: Docker.Container, path: string): Promise<string> {
  const archive = await archiveOf(container, path);
  if (!archive) return "";
  const tar = execa("tar", ["-x", "-O"], { stdin: "pipe", stripFinalNewline: false });
  const [, { stdout }] = await Promise.all([pipeline(archive, tar.stdin), tar]);
  return stdout;
}

/** `names` under `dir` as an archive owned by `uid`, put into the box at `target`. */
async function putOwned(
  container: Docker.Container,
  dir: string,
  names: readonly string[],
  uid: number,
  target: string,
): Promise<void> {
  const tar = execa(
    "tar",
    ["-c", `--owner=${uid}`, `--group=${uid}`, "--numeric-owner", "-C", dir, ...names],
    {
      stdout: "pipe",
      encoding: "buffer",
    },
  );
  const body = new PassThrough();
  tar.stdout.pipe(body);
  await Promise.all([container.putArchive(body, { path: target }), tar]);
}

export async function giveBoxItsUser(container: Docker.Container, uid: number): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "baton-box-user-"));
  try {
    const accounts = renumberAgent(
      {
        passwd: await readBoxFile(container, "/etc/passwd"),
        group: await readBoxFile(container, "/etc/group"),
      },
      uid,
    );
    const etc = join(work, "etc");
    await mkdir(etc);
    await writeFile(join(etc, "passwd"), accounts.passwd, { mode: 0o644 });
    await writeFile(join(etc, "group"), accounts.group, { mode: 0o644 });
    await putOwned(container, etc, ["passwd", "group"], 0, "/etc");

    // The home as the image made it (usually nearly empty; an image of the operator's own may fill it), re-owned.
    const parent = join(work, "home");
    const home = join(parent, posix.basename(AGENT_HOME));
    await mkdir(parent);
    const archive = await archiveOf(container, AGENT_HOME);
    if (archive) {
      const tar = execa("tar", ["-x", "--no-same-owner", "-C", parent], { stdin: "pipe" });
      await Promise.all([pipeline(archive, tar.stdin), tar]);
    } else await mkdir(home);
    // The box's own: not even another box's uid may enter it, should the two ever meet on the host.
    await chmod(home, 0o700);
    await putOwned(container, parent, [posix.basename(AGENT_HOME)], uid, posix.dirname(AGENT_HOME));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

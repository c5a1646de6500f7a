// A copy-out as one tar archive, the form it travels in between instances: the driver copies into a fresh
// folder, tar packs it (symbolic links stay links, as the drivers' own copies keep them), and the receiving side
// unpacks it without the archive's owners. Bounded, so a huge folder is refused rather than held in memory.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";

/** The largest copy-out archive passed between instances. */
export const MAX_ARCHIVE_BYTES = 64 * 1024 * 1024;

export async function archiveFolder(fill: (dir: string) => Promise<void>): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), "baton-copy-out-"));
  try {
    await fill(dir);
    const { stdout } = await execa("tar", ["-C", dir, "-c", "."], {
      encoding: "buffer",
      maxBuffer: MAX_ARCHIVE_BYTES,
    });
    return Buffer.from(stdout);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function extractArchive(archive: Buffer, hostDir: string): Promise<void> {
  await mkdir(hostDir, { recursive: true });
  await execa("tar", ["-x", "--no-same-owner", "-C", hostDir], { input: archive });
}

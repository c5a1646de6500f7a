// A cached layer's folder read back from the Docker engine's copy of it. The folders under
// node_modules/.cache/baton-sandbox/ go with `npm ci` (a fresh clone, CI), while the engine keeps the images made
// from them; an image's tag carries the same input key, so its layer is the folder as it was imported, byte for
// byte (owners, modes and device nodes included: `docker save` hands back the tar that went in). Restoring the
// base takes seconds where debootstrap takes a minute or more.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * Extracts the `which` layer ("only" for a one-layer image such as the imported base, "top" for the layer a
 * `docker build` added last) of the engine's image `tag` into `target`. Returns false, leaving nothing behind,
 * when the engine has no such image or the save cannot be read.
 */
export function restoreLayerFromImage({ tag, target, which, scratch }) {
  const saved = join(scratch, "image.tar");
  mkdirSync(scratch, { recursive: true });
  try {
    if (spawnSync("docker", ["save", "-o", saved, tag], { stdio: "ignore" }).status !== 0) return false;
    const manifest = spawnSync("tar", ["-xOf", saved, "manifest.json"], { encoding: "utf8" });
    if (manifest.status !== 0) return false;
    const layers = JSON.parse(manifest.stdout)[0]?.Layers ?? [];
    if (layers.length === 0 || (which === "only" && layers.length !== 1)) return false;
    mkdirSync(target, { recursive: true });
    const extracted = spawnSync(
      "bash",
      [
        "-o",
        "pipefail",
        "-c",
        'tar -xOf "$1" "$2" | tar --numeric-owner --same-permissions -xf - -C "$3"',
        "restore",
        saved,
        layers.at(-1),
        target,
      ],
      { stdio: "ignore" },
    );
    if (extracted.status !== 0) {
      rmSync(target, { recursive: true, force: true });
      return false;
    }
    return true;
  } catch {
    rmSync(target, { recursive: true, force: true });
    return false;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

// Where the sandbox image is: what scripts/build-sandbox-image.mjs recorded (its tag, root filesystem and baton
// layer), or what the operator set. `BATON_SANDBOX_IMAGE` names an image of one's own for the Docker driver;
// `BATON_SANDBOX_ROOTFS` and `BATON_SANDBOX_BATON_DIR` the namespace driver's tree and baton layer.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as z from "zod";
import { ConfigError } from "../../../errors.js";

export const BuiltImageSchema = z.object({
  image: z.string().nullable(),
  rootfs: z.string(),
  batonDir: z.string(),
  /** The coding agents' layer (`opt/baton-agents/<id>`), when the build installed any. */
  agentsDir: z.string().nullable().optional(),
  agents: z.array(z.string()).optional(),
});
export type BuiltImage = z.infer<typeof BuiltImageSchema>;

/** The package root: the nearest folder above this file with baton's package.json. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const parsed = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string };
      if (parsed.name === "baton") return dir;
    } catch {
      // keep going up
    }
    const parent = dirname(dir);
    if (parent === dir) throw new ConfigError("cannot find baton's package.json above its code");
    dir = parent;
  }
}

export function builtImagePath(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.BATON_SANDBOX_CACHE || join(packageRoot(), "node_modules", ".cache", "baton-sandbox");
  return join(cache, "image.json");
}

/**
 * The image to use: the operator's overrides first, then the recorded build. The namespace driver needs the root
 * filesystem and the baton layer (BATON_SANDBOX_ROOTFS, BATON_SANDBOX_BATON_DIR); the Docker driver an image.
 */
export function resolveSandboxImage(
  env: NodeJS.ProcessEnv = process.env,
  driver?: "docker" | "namespace",
): BuiltImage {
  let built: BuiltImage | undefined;
  const path = builtImagePath(env);
  try {
    built = BuiltImageSchema.parse(JSON.parse(readFileSync(path, "utf8")));
  } catch {
    built = undefined;
  }
  const image = env.BATON_SANDBOX_IMAGE || built?.image || null;
  const rootfs = env.BATON_SANDBOX_ROOTFS || built?.rootfs;
  const batonDir = env.BATON_SANDBOX_BATON_DIR || built?.batonDir;
  const agentsDir = env.BATON_SANDBOX_AGENTS_DIR || built?.agentsDir || null;
  // The recorded agents are those of the recorded build: an image or agents layer of the operator's own may hold
  // others, so none is assumed there (a workspace may choose only an agent known to be in the image).
  const ownLayer =
    driver === "namespace"
      ? env.BATON_SANDBOX_AGENTS_DIR && env.BATON_SANDBOX_AGENTS_DIR !== built?.agentsDir
      : env.BATON_SANDBOX_IMAGE && env.BATON_SANDBOX_IMAGE !== built?.image;
  const agents = ownLayer ? [] : (built?.agents ?? []);
  if (driver === "namespace") {
    if (!rootfs || !batonDir)
      throw new ConfigError(
        `no sandbox root filesystem for the namespace driver: run \`npm run sandbox-image\` (records ${path}) or set BATON_SANDBOX_ROOTFS (the image's root filesystem) and BATON_SANDBOX_BATON_DIR (the folder holding opt/baton)`,
      );
    for (const [name, folder] of [
      ["BATON_SANDBOX_ROOTFS", rootfs],
      ["BATON_SANDBOX_BATON_DIR", batonDir],
    ] as const)
      if (!existsSync(folder))
        throw new ConfigError(
          `the namespace driver's ${name === "BATON_SANDBOX_ROOTFS" ? "root filesystem" : "baton layer"} ${folder} does not exist (${env[name] ? `from ${name}` : `recorded in ${path}`}): run \`npm run sandbox-image\` again or set ${name}`,
        );
    return { image, rootfs, batonDir, agentsDir, agents };
  }
  if (!rootfs || !batonDir) {
    if (!image)
      throw new ConfigError(
        `no sandbox image: run \`npm run sandbox-image\` (records ${path}) or set BATON_SANDBOX_IMAGE`,
      );
    return { image, rootfs: rootfs ?? "", batonDir: batonDir ?? "", agentsDir, agents };
  }
  return { image, rootfs, batonDir, agentsDir, agents };
}

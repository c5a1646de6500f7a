// Installs a Node 18 binary (the npm `node@18` package) under node_modules/.cache so the runner's tests can
// prove the bundle runs on the oldest Node a sandbox image may bring. Idempotent; prints the binary's path.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const NODE18_VERSION = "18.20.8";
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const NODE18_PREFIX = join(root, "node_modules", ".cache", "baton-node18");
export const NODE18_BIN = join(NODE18_PREFIX, "node_modules", ".bin", "node");

function installedVersion() {
  if (!existsSync(NODE18_BIN)) return null;
  try {
    return execFileSync(NODE18_BIN, ["--version"], { encoding: "utf8" }).trim();
  } catch {
    return null;
  }
}

export function ensureNode18() {
  if (installedVersion() === `v${NODE18_VERSION}`) return NODE18_BIN;
  execFileSync(
    "npm",
    [
      "install",
      "--prefix",
      NODE18_PREFIX,
      "--no-save",
      "--no-package-lock",
      "--loglevel=error",
      `node@${NODE18_VERSION}`,
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const version = installedVersion();
  if (version !== `v${NODE18_VERSION}`)
    throw new Error(`install-node18: expected v${NODE18_VERSION}, got ${version}`);
  return NODE18_BIN;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(ensureNode18());

// Which sandbox `npm run demo` can use, and when it falls back to a temporary HOME, exactly why: what failed
// (the Docker client's own words), the fix, and whether the namespace driver would have been a way out here.
// The demo drives its box with `docker exec`; it has no namespace mode, so a machine with bubblewrap and the
// sandbox root filesystem is told the command that gives a namespace box instead.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";

/** The root filesystem `npm run sandbox-image` recorded (or BATON_SANDBOX_ROOTFS), when it is there. */
function sandboxRootfs(root, env) {
  if (env.BATON_SANDBOX_ROOTFS) return existsSync(env.BATON_SANDBOX_ROOTFS) ? env.BATON_SANDBOX_ROOTFS : null;
  const cache = env.BATON_SANDBOX_CACHE || join(root, "node_modules", ".cache", "baton-sandbox");
  try {
    const { rootfs } = JSON.parse(readFileSync(join(cache, "image.json"), "utf8"));
    return typeof rootfs === "string" && existsSync(rootfs) ? rootfs : null;
  } catch {
    return null;
  }
}

const onPath = (program, env) =>
  (env.PATH ?? "").split(delimiter).some((dir) => dir !== "" && existsSync(join(dir, program)));

/** Whether the namespace driver would work here, said as the demo's next sentence. */
function namespaceNote(root, env) {
  const missing = [];
  if (!onPath("bwrap", env)) missing.push("no bwrap (bubblewrap) on PATH");
  if (!sandboxRootfs(root, env))
    missing.push("no sandbox root filesystem (`npm run sandbox-image` builds it)");
  if (missing.length > 0) return `The namespace driver cannot stand in either: ${missing.join(", ")}.`;
  return (
    "bubblewrap and the sandbox root filesystem are here, so `baton env test fixtures/repos/acme-api --driver namespace` " +
    "runs acme/api in a namespace box; this demo drives its box with docker exec and has no namespace mode."
  );
}

/**
 * Null when the demo can use a container sandbox (Docker driver); otherwise why not, in full. `uid` and `env` are
 * the demo's (passed in so a test can ask about another machine).
 */
export function whyNoContainer({ root, argv, uid, env }) {
  if (argv.includes("--no-docker")) return "--no-docker was given";
  if (uid !== 0) return "the Docker driver needs root (it sets firewall rules for its network)";
  const info = spawnSync("docker", ["info", "--format", "{{.ServerVersion}}"], { env, encoding: "utf8" });
  if (info.status === 0) return null;
  const where = env.DOCKER_HOST
    ? `${env.DOCKER_HOST} (DOCKER_HOST)`
    : "the default socket /var/run/docker.sock";
  const said = info.error
    ? "there is no docker program on PATH"
    : `docker info says: ${(info.stderr || info.stdout).trim().split("\n").find(Boolean) ?? `exit ${info.status}`}`;
  return `no Docker engine answers at ${where}; ${said}. Start one (\`bash scripts/setup-machine.sh\` installs and starts one) or point DOCKER_HOST at one. ${namespaceNote(root, env)}`;
}

// `npm run service-image`: the OCI image that runs `baton serve` and `baton proxy`, built with no image registry
// the way the sandbox image is: on the sandbox image's base (Debian minbase from debootstrap, Node 22, git, bash,
// ca-certificates, imported with `docker import`) plus this build of baton with its production packages (the
// sandbox image's baton layer, the same folder). What it adds: an account of its own (`baton`, uid 10001, home
// /var/lib/baton, the state folder), that account as the user, `baton` as the entry point, `serve` on the three
// listeners as the default command and a health check on /healthz. Tagged `baton-service:<version>` and
// `baton-service:<version>-<key>`, the key a hash of its inputs, so a second run with the same inputs builds nothing.
//
// Usage: node scripts/build-service-image.mjs [--skip-build] [--json]
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "./sandbox-image/run.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = new Set(process.argv.slice(2));
const json = args.has("--json");
const log = (line) => (json ? process.stderr : process.stdout).write(`service image: ${line}\n`);

export const SERVICE_USER = { name: "baton", uid: 10001, home: "/var/lib/baton" };
export const SERVICE_PORTS = { public: 8080, ops: 8081, admin: 8082 };

/** The Dockerfile on top of the sandbox base: only the account and metadata; everything else is copied. */
function dockerfile(baseImage) {
  const { name, uid, home } = SERVICE_USER;
  const { public: web, ops, admin } = SERVICE_PORTS;
  const health = `fetch('http://127.0.0.1:'+(process.env.BATON_HEALTH_PORT||${web})+'/healthz').then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))`;
  return [
    `FROM ${baseImage}`,
    "USER root",
    // The sandbox image's shell hook reads an agent's activated environment: nothing of it applies here.
    `RUN echo '${name}:x:${uid}:${uid}:Baton service:${home}:/usr/sbin/nologin' >> /etc/passwd \\`,
    ` && echo '${name}:x:${uid}:' >> /etc/group \\`,
    ` && mkdir -p ${home} && chown ${uid}:${uid} ${home} && chmod 0700 ${home}`,
    "COPY opt/ /opt/",
    `ENV HOME=${home} USER=${name} BASH_ENV= ENV= XDG_DATA_HOME=${home} NODE_ENV=production`,
    `WORKDIR ${home}`,
    `VOLUME ${home}`,
    `USER ${uid}:${uid}`,
    `EXPOSE ${web} ${ops} ${admin}`,
    `HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["node", "-e", ${JSON.stringify(health)}]`,
    'ENTRYPOINT ["baton"]',
    `CMD ["serve", "--host", "0.0.0.0", "--port", "${web}", "--ops-listen", "0.0.0.0:${ops}", "--admin-listen", "0.0.0.0:${admin}"]`,
    "",
  ].join("\n");
}

function imageExists(tag) {
  return spawnSync("docker", ["image", "inspect", tag], { stdio: "ignore" }).status === 0;
}

const started = performance.now();
// The sandbox image's base and baton layer, built or found cached (its own output goes to stderr with --json).
const sandbox = JSON.parse(
  run(
    process.execPath,
    [
      join(root, "scripts", "build-sandbox-image.mjs"),
      "--json",
      ...(args.has("--skip-build") ? ["--skip-build"] : []),
    ],
    { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
  ),
);
if (!sandbox.baseImage)
  throw new Error(
    "no Docker engine answers: the service image needs one (scripts/setup-machine.sh starts it)",
  );
const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
const recipe = dockerfile(sandbox.baseImage);
const key = createHash("sha256").update(recipe).update(sandbox.batonDir).digest("hex").slice(0, 16);
const tag = `baton-service:${version}-${key}`;
let built = false;
if (!imageExists(tag)) {
  const recipeFile = join(dirname(sandbox.batonDir), `service-${key}.Dockerfile`);
  mkdirSync(dirname(recipeFile), { recursive: true });
  writeFileSync(recipeFile, recipe);
  run(
    "docker",
    ["build", "--quiet", "--label", "baton.service=1", "-f", recipeFile, "-t", tag, sandbox.batonDir],
    {
      env: { ...process.env, DOCKER_BUILDKIT: "0" },
    },
  );
  built = true;
}
run("docker", ["tag", tag, `baton-service:${version}`]);
const result = { image: tag, alias: `baton-service:${version}`, built, seconds: 0 };
result.seconds = Number(((performance.now() - started) / 1000).toFixed(2));
if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
else log(`${tag} (also ${result.alias}) ready in ${result.seconds} s (${built ? "built" : "cached"})`);

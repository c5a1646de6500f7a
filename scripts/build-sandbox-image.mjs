// Builds Baton's sandbox image without any image registry: a Debian minbase root filesystem made by debootstrap
// (mirror read from the machine's apt sources), Node 22 copied from the `node` devDependency (npm from the
// machine's own npm), the shell hooks,
// and this build of baton. Two cached layers under node_modules/.cache/baton-sandbox/:
//   base-<key>/rootfs   debootstrap tree + node + hooks, imported as `baton-sandbox-base:<key>` (docker import);
//                       the namespace driver runs bubblewrap on this same tree.
//   baton-<key>/        dist/, package.json and the production node_modules, added as one layer on top:
//                       `baton-sandbox:<version>-<key>`.
// Each key is a hash of the layer's inputs, so a layer is rebuilt only when they change. The result (tags and
// paths) is written to image.json beside them; drivers and tests read it.
//
// A third layer, between them, holds the configured coding agents (scripts/sandbox-image/agents.mjs):
//   agents-<key>/       /opt/baton-agents/<id>, each from its lockfile in sandbox-agents/<id>/, and their
//                       compile cache in /opt/baton-agents/.compile-cache.
//
// Usage: node scripts/build-sandbox-image.mjs [--skip-build] [--no-docker] [--json] [--agents=<id>,…]
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  appendFileSync,
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { AGENTS_PREFIX, buildAgentsLayer, configuredAgents } from "./sandbox-image/agents.mjs";
import { restoreLayerFromImage } from "./sandbox-image/from-engine.mjs";
import { readDebianMirror } from "./sandbox-image/mirror.mjs";
import {
  AGENT,
  APPENDS,
  BATON_BIN,
  BATON_PREFIX,
  FILES,
  IMAGE_ENV,
  PACKAGES,
  SUITE,
  VARIANT,
} from "./sandbox-image/rootfs-files.mjs";
import { run } from "./sandbox-image/run.mjs";

// 2: /opt/baton-agents, the agents layer's mount point for the namespace driver.
const RECIPE_VERSION = 2;
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cacheDir = process.env.BATON_SANDBOX_CACHE || join(root, "node_modules", ".cache", "baton-sandbox");
const cacheLabel = createHash("sha256").update(cacheDir).digest("hex").slice(0, 12);
const args = new Set(process.argv.slice(2));
const json = args.has("--json");
const log = (line) => (json ? process.stderr : process.stdout).write(`sandbox image: ${line}\n`);

function hashFile(hash, path) {
  hash.update(readFileSync(path));
}

function hashTree(hash, dir, keep = () => true) {
  const walk = (current) => {
    for (const name of readdirSync(current).sort()) {
      const path = join(current, name);
      if (!keep(path)) continue;
      const stat = statSync(path);
      hash.update(`${relative(dir, path)}\0${stat.mode & 0o111 ? "x" : "-"}\0`);
      if (stat.isDirectory()) walk(path);
      else hash.update(readFileSync(path));
    }
  };
  walk(dir);
}

const nodeBinary = join(root, "node_modules", "node", "bin", "node");

/** npm for the agent (`npm test`, `npm ci` through the proxy): the machine's own npm, a plain JS package. */
function findNpm() {
  const which = spawnSync("bash", ["-c", 'readlink -f "$(command -v npm)"'], { encoding: "utf8" });
  const cli = which.stdout.trim();
  const dir = cli ? dirname(dirname(cli)) : "";
  if (!dir || !existsSync(join(dir, "package.json")))
    throw new Error("npm is not on PATH; the image copies the machine's npm (install Node and npm first)");
  return { dir, version: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version };
}
const npm = findNpm();
if (!existsSync(nodeBinary))
  throw new Error("node_modules/node/bin/node is missing; run `npm ci` first (the node@22 devDependency)");

/** The node binary's sha256, remembered by size and modification time (hashing 120 MB on every run is slow). */
function nodeBinaryHash() {
  const stat = statSync(nodeBinary);
  const stamp = `${stat.size}:${stat.mtimeMs}`;
  const memo = join(cacheDir, "node-binary.sha256");
  try {
    const [savedStamp, saved] = readFileSync(memo, "utf8").trim().split(" ");
    if (savedStamp === stamp && saved) return saved;
  } catch {
    // not remembered yet
  }
  const digest = createHash("sha256").update(readFileSync(nodeBinary)).digest("hex");
  writeFileSync(memo, `${stamp} ${digest}\n`);
  return digest;
}

async function buildBase() {
  const mirror = readDebianMirror(SUITE);
  const hash = createHash("sha256");
  hash.update(JSON.stringify({ RECIPE_VERSION, SUITE, VARIANT, PACKAGES, AGENT, APPENDS, FILES, IMAGE_ENV }));
  hash.update(mirror.uri);
  hash.update(nodeBinaryHash());
  hash.update(`npm@${npm.version}`);
  const key = hash.digest("hex").slice(0, 16);
  const dir = join(cacheDir, `base-${key}`);
  const rootfs = join(dir, "rootfs");
  if (existsSync(join(dir, "complete"))) return { key, rootfs, built: false };

  const started = performance.now();
  const staging = `${dir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const stagedRootfs = join(staging, "rootfs");
  // A fresh clone whose engine still holds the base imported from these very inputs: read it back.
  const imported = `baton-sandbox-base:${key}`;
  if (
    engineUsable() &&
    imageExists(imported) &&
    restoreLayerFromImage({ tag: imported, target: stagedRootfs, which: "only", scratch: `${staging}.save` })
  ) {
    settleCachedDir(staging, dir);
    log(
      `root filesystem restored from ${imported} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    pruneOlderDirs("base", key);
    return { key, rootfs, built: false };
  }
  log(`debootstrap --variant=${VARIANT} ${SUITE} (${PACKAGES.join(", ")}); takes a minute or two`);
  run("debootstrap", [
    `--variant=${VARIANT}`,
    `--include=${PACKAGES.join(",")}`,
    ...(mirror.signedBy ? [`--keyring=${mirror.signedBy}`] : []),
    SUITE,
    stagedRootfs,
    mirror.uri,
  ]);
  // Package caches and lists: not needed at run time, and they make the image bigger.
  for (const junk of ["var/cache/apt/archives", "var/lib/apt/lists", "var/log"]) {
    for (const name of readdirSync(join(stagedRootfs, junk))) {
      if (name !== "partial" && name !== "lock") rmSync(join(stagedRootfs, junk, name), { recursive: true });
    }
  }
  cpSync(nodeBinary, join(stagedRootfs, "usr", "local", "bin", "node"));
  chmodSync(join(stagedRootfs, "usr", "local", "bin", "node"), 0o755);
  symlinkSync(BATON_BIN, join(stagedRootfs, "usr", "local", "bin", "baton"));
  cpSync(npm.dir, join(stagedRootfs, "usr", "local", "lib", "node_modules", "npm"), { recursive: true });
  for (const [name, target] of [
    ["npm", "npm-cli.js"],
    ["npx", "npx-cli.js"],
  ])
    symlinkSync(`../lib/node_modules/npm/bin/${target}`, join(stagedRootfs, "usr", "local", "bin", name));
  mkdirSync(join(stagedRootfs, BATON_PREFIX.slice(1)), { recursive: true });
  mkdirSync(join(stagedRootfs, AGENTS_PREFIX.slice(1)), { recursive: true });
  for (const [path, text] of Object.entries(APPENDS)) appendFileSync(join(stagedRootfs, path), text);
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(stagedRootfs, path)), { recursive: true });
    writeFileSync(join(stagedRootfs, path), text, { mode: 0o644 });
  }
  const home = join(stagedRootfs, AGENT.home.slice(1));
  mkdirSync(join(home, "checkouts"), { recursive: true });
  chownSync(home, AGENT.uid, AGENT.gid);
  chownSync(join(home, "checkouts"), AGENT.uid, AGENT.gid);
  settleCachedDir(staging, dir);
  log(`root filesystem built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  pruneOlderDirs("base", key);
  return { key, rootfs, built: true };
}

/** Marks a staged layer folder complete and moves it where the next run finds it. */
function settleCachedDir(staging, dir) {
  writeFileSync(join(staging, "complete"), `${new Date().toISOString()}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
}

/** Older folders of a layer: the newest one is all the namespace driver and the next build need. */
function pruneOlderDirs(layer, key) {
  for (const name of readdirSync(cacheDir))
    if (new RegExp(`^${layer}-[0-9a-f]{16}$`).test(name) && name !== `${layer}-${key}`)
      rmSync(join(cacheDir, name), { recursive: true, force: true });
}

/** Docker may be used for this build (an engine answers and `--no-docker` was not given). */
function engineUsable() {
  engineAnswers ??= !args.has("--no-docker") && dockerAvailable();
  return engineAnswers;
}
let engineAnswers;

function productionPackages() {
  const result = spawnSync("npm", ["ls", "--omit=dev", "--all", "--parseable"], {
    cwd: root,
    encoding: "utf8",
  });
  const paths = (result.stdout ?? "")
    .split("\n")
    .filter((line) => line.startsWith(join(root, "node_modules")))
    .sort();
  // A nested package is copied with its parent.
  return paths.filter(
    (path, index) => !paths.slice(0, index).some((parent) => path.startsWith(`${parent}/`)),
  );
}

function buildBatonLayer() {
  if (!args.has("--skip-build")) run(process.execPath, [join(root, "scripts", "build.mjs")], { cwd: root });
  const keep = (path) => !path.endsWith(".tsbuildinfo") && !path.endsWith(".map");
  // The key comes from the inputs (the build, package.json, the lock file), so a cached run copies nothing.
  const hash = createHash("sha256");
  hashTree(hash, join(root, "dist"), keep);
  hashFile(hash, join(root, "package.json"));
  hashFile(hash, join(root, "package-lock.json"));
  const key = hash.digest("hex").slice(0, 16);
  const dir = join(cacheDir, `baton-${key}`);
  if (!existsSync(dir)) {
    const staging = join(cacheDir, `baton.tmp-${process.pid}`);
    rmSync(staging, { recursive: true, force: true });
    const prefix = join(staging, BATON_PREFIX.slice(1));
    mkdirSync(prefix, { recursive: true });
    cpSync(join(root, "package.json"), join(prefix, "package.json"));
    cpSync(join(root, "dist"), join(prefix, "dist"), { recursive: true, filter: keep });
    for (const path of productionPackages())
      cpSync(path, join(prefix, relative(root, path)), { recursive: true, verbatimSymlinks: true });
    renameSync(staging, dir);
  }
  pruneOlderDirs("baton", key);
  return { key, dir };
}

function dockerAvailable() {
  return spawnSync("docker", ["info"], { stdio: "ignore" }).status === 0;
}

function imageExists(tag) {
  return spawnSync("docker", ["image", "inspect", tag], { stdio: "ignore" }).status === 0;
}

function importBase(base) {
  const tag = `baton-sandbox-base:${base.key}`;
  if (imageExists(tag)) return { tag, built: false };
  const started = performance.now();
  const changes = [
    ...Object.entries(IMAGE_ENV).map(([name, value]) => `ENV ${name}=${value}`),
    `USER ${AGENT.name}`,
    `WORKDIR ${AGENT.home}`,
    'CMD ["bash"]',
    `LABEL baton.sandbox.cache=${cacheLabel}`,
  ].flatMap((change) => ["--change", change]);
  const tar = `tar --numeric-owner -C '${base.rootfs}' -c . | docker import ${changes
    .map((c) => `'${c.replaceAll("'", "'\\''")}'`)
    .join(" ")} - '${tag}'`;
  run("bash", ["-o", "pipefail", "-c", tar]);
  log(`imported ${tag} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  pruneOlderImages("baton-sandbox-base", tag);
  return { tag, built: true };
}

/** The agents' layer on the base (it changes far less often than baton's, so it goes first). */
function addAgentsLayer(baseTag, agents) {
  if (!agents) return { tag: baseTag, built: false };
  const tag = agentsImageTag(baseTag, agents.key);
  if (imageExists(tag)) return { tag, built: false };
  const started = performance.now();
  dockerBuild(agents.dir, baseTag, tag);
  log(`built ${tag} (${agents.ids.join(", ")}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  pruneOlderImages("baton-sandbox-agents", tag);
  return { tag, built: true };
}

function addBatonLayer(baseTag, baton, version) {
  const tag = `baton-sandbox:${version}-${createHash("sha256").update(`${baseTag}\0${baton.key}`).digest("hex").slice(0, 16)}`;
  if (imageExists(tag)) return { tag, built: false };
  const started = performance.now();
  dockerBuild(baton.dir, baseTag, tag);
  log(`built ${tag} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  pruneOlderImages("baton-sandbox", tag);
  return { tag, built: true };
}

function agentsImageTag(baseTag, agentsKey) {
  return `baton-sandbox-agents:${createHash("sha256").update(`${baseTag}\0${agentsKey}`).digest("hex").slice(0, 16)}`;
}

/** `FROM base` plus the folder's opt/ tree, as one layer. */
function dockerBuild(dir, baseTag, tag) {
  writeFileSync(join(dir, "Dockerfile"), `FROM ${baseTag}\nCOPY opt/ /opt/\n`);
  run(
    "docker",
    [
      "build",
      "--quiet",
      "--label",
      "baton.sandbox=1",
      "--label",
      `baton.sandbox.cache=${cacheLabel}`,
      "-t",
      tag,
      dir,
    ],
    {
      env: { ...process.env, DOCKER_BUILDKIT: "0" },
    },
  );
}

/** Earlier images of `repository` built from this cache (other checkouts' images carry another label). An
 * image a container still uses is kept by Docker; that refusal is fine. */
function pruneOlderImages(repository, current) {
  const listed = spawnSync(
    "docker",
    [
      "images",
      repository,
      "--filter",
      `label=baton.sandbox.cache=${cacheLabel}`,
      "--format",
      "{{.Repository}}:{{.Tag}}",
    ],
    { encoding: "utf8" },
  );
  for (const tag of (listed.stdout ?? "").split("\n").filter(Boolean))
    if (tag !== current) spawnSync("docker", ["rmi", tag], { stdio: "ignore" });
}

const started = performance.now();
mkdirSync(cacheDir, { recursive: true });
const base = await buildBase();
const agents = buildAgentsLayer({
  root,
  cacheDir,
  ids: configuredAgents(process.argv.slice(2), process.env, root),
  rootfs: base.rootfs,
  baseKey: base.key,
  log,
  // The tag addAgentsLayer gives the agents image of these inputs, read back when the folder is gone.
  imageOf: (key) => (engineUsable() ? agentsImageTag(`baton-sandbox-base:${base.key}`, key) : undefined),
});
const baton = buildBatonLayer();
const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
const result = {
  image: null,
  baseImage: null,
  rootfs: base.rootfs,
  batonDir: baton.dir,
  agentsDir: agents?.dir ?? null,
  agents: agents?.ids ?? [],
  built: [],
};
if (base.built) result.built.push("rootfs");
if (!engineUsable()) {
  log("no Docker engine answers: built the root filesystem only (the namespace driver's)");
} else {
  const imported = importBase(base);
  const withAgents = addAgentsLayer(imported.tag, agents);
  const layered = addBatonLayer(withAgents.tag, baton, version);
  result.baseImage = imported.tag;
  result.image = layered.tag;
  if (imported.built) result.built.push("base image");
  if (withAgents.built) result.built.push("agents layer");
  if (layered.built) result.built.push("baton layer");
}
result.seconds = Number(((performance.now() - started) / 1000).toFixed(2));
writeFileSync(join(cacheDir, "image.json"), `${JSON.stringify(result, null, 2)}\n`);
if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
else
  log(
    `${result.image ?? result.rootfs} ready in ${result.seconds} s (${result.built.length ? `built: ${result.built.join(", ")}` : "cached"})`,
  );

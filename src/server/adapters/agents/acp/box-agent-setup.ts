// Before a catalog agent's turn in a box: its model key must be there as a placeholder (the repository's secret
// of the entry's variable; the proxy swaps in the value, only towards the model's host), its config files are
// written under the box's home, and the proxy's CA is fetched into ~/.baton (the file `baton env activate`
// writes too) with a bundle of the system's CAs and it, for agents that replace the store rather than add to it,
// and the image's compile cache of the agents is linked under ~/.baton/compile-cache for this box's uid (Node names
// a cache's folder by the uid that made it: the image made it as 1000, a box runs as a uid of its own).
// One Node script in the box does it all (run by the turn's set-up in box-workspace.ts); its answer is one JSON
// line.

export interface BoxAgentSetup {
  /** The agent as reasons name it ("Claude Code"). */
  agentName: string;
  /** The variable that must hold the key's placeholder, and the host it is for. */
  keyVariable: string;
  modelHost: string;
  /** Files under the box's home (relative paths), written before each start. */
  files: readonly { path: string; content: string }[];
  /** Variables that point the agent at an extra CA: NODE_EXTRA_CA_CERTS gets the CA, the others the bundle. */
  caVariables: readonly string[];
  /** The image's read-only compile cache of the agents (NODE_COMPILE_CACHE points at a link to it). */
  compileCache?: string;
}

export type BoxAgentReady =
  | { kind: "ready"; env: Record<string, string> }
  | { kind: "missing_key" }
  | { kind: "failed"; reason: string };

const SCRIPT = String.raw`
const fs = require("node:fs"), path = require("node:path"), http = require("node:http");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const home = process.env.HOME;
const answer = (value) => fs.writeSync(1, JSON.stringify(value) + "\n");
const fail = (text) => { fs.writeSync(2, text + "\n"); process.exitCode = 3; };
// The shared cache's folder (<node>-<arch>-<flags>-<uid>) linked under this uid's name in the box's own folder;
// without a shared cache the agent simply compiles.
const linkCompileCache = () => {
  if (!input.compileCache) return undefined;
  let made;
  try { made = fs.readdirSync(input.compileCache).find((name) => /-[0-9]+$/.test(name)); } catch { return undefined; }
  if (!made) return undefined;
  const own = path.join(home, ".baton", "compile-cache");
  fs.mkdirSync(own, { recursive: true, mode: 0o700 });
  const link = path.join(own, made.replace(/-[0-9]+$/, "-" + process.getuid()));
  try { fs.symlinkSync(path.join(input.compileCache, made), link); } catch (error) { if (error.code !== "EEXIST") return undefined; }
  return own;
};
const main = () => {
  if (!process.env[input.keyVariable]) return answer({ missingKey: true });
  for (const file of input.files) {
    const target = path.join(home, file.path);
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    fs.writeFileSync(target, file.content, { mode: 0o600 });
  }
  const compileCache = linkCompileCache();
  const proxy = process.env.BATON_PROXY_URL;
  if (!proxy) return answer({ missingKey: false, compileCache });
  http.get(new URL("/ca.pem", proxy), { timeout: 10000 }, (response) => {
    let pem = "";
    response.setEncoding("utf8").on("data", (chunk) => (pem += chunk)).on("end", () => {
      if (response.statusCode !== 200 || !pem.includes("BEGIN CERTIFICATE"))
        return fail("the proxy answered " + response.statusCode + " for its CA");
      const dir = path.join(home, ".baton");
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const ca = path.join(dir, "proxy-ca.pem"), bundle = path.join(dir, "ca-bundle.pem");
      fs.writeFileSync(ca, pem.endsWith("\n") ? pem : pem + "\n");
      let system = "";
      try { system = fs.readFileSync("/etc/ssl/certs/ca-certificates.crt", "utf8"); } catch {}
      fs.writeFileSync(bundle, system + (system.endsWith("\n") || !system ? "" : "\n") + fs.readFileSync(ca, "utf8"));
      answer({ missingKey: false, ca, bundle, compileCache });
    });
  }).on("error", (error) => fail("cannot reach the proxy for its CA: " + error.message));
};
main();
`;

/** The set-up's program (Node in the box reads the set-up's input on its stdin and answers one JSON line). */
export const BOX_AGENT_SETUP_SCRIPT = SCRIPT;

/** What the set-up program reads on its stdin. */
export function boxAgentSetupInput(setup: BoxAgentSetup): string {
  return JSON.stringify({
    keyVariable: setup.keyVariable,
    files: setup.files,
    ...(setup.compileCache ? { compileCache: setup.compileCache } : {}),
  });
}

/** The set-up's answer read from its exit status and output (the last stdout line is its JSON). */
export function readBoxAgentSetupAnswer(
  setup: BoxAgentSetup,
  result: { exitCode: number; stdout: string; stderr: string },
): BoxAgentReady {
  if (result.exitCode !== 0)
    return {
      kind: "failed",
      reason: `${setup.agentName} could not be set up in the box (exit ${result.exitCode}): ${result.stderr.trim().slice(-300)}`,
    };
  let answer: { missingKey?: boolean; ca?: string; bundle?: string; compileCache?: string };
  try {
    answer = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "");
  } catch {
    return { kind: "failed", reason: `${setup.agentName}'s set-up in the box answered no JSON` };
  }
  if (answer.missingKey) return { kind: "missing_key" };
  const env: Record<string, string> = {};
  if (answer.ca && answer.bundle)
    for (const name of setup.caVariables)
      env[name] = name === "NODE_EXTRA_CA_CERTS" ? answer.ca : answer.bundle;
  if (answer.compileCache) env.NODE_COMPILE_CACHE = answer.compileCache;
  return { kind: "ready", env };
}

/** What a task without its model key is told, and what the operator or owner must do. */
export function missingKeyReason(setup: BoxAgentSetup, repo: string | null): string {
  const where = repo ? `a secret ${setup.keyVariable} of ${repo}` : `a secret ${setup.keyVariable}`;
  return `${setup.agentName} needs an API key for ${setup.modelHost}: add ${where} with ${setup.modelHost} approved, then reply to resume`;
}

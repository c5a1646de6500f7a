// Which real coding agent `npm run demo -- --agent <id>` can run, and when it cannot, exactly why and what to run.
// Pure: the catalog, the image's record (image.json) and the environment are passed in.

/** The catalog's model APIs the demo has a fake of (src/testing/fake-models), by the fake's name. */
export const FAKE_OF_API = { "anthropic-messages": "anthropic", "openai-responses": "openai-responses" };

/** The value of `--agent <id>` or `--agent=<id>`; undefined without the flag, "" when it has no value. */
export function agentFlag(argv) {
  for (const [index, arg] of argv.entries()) {
    if (arg.startsWith("--agent=")) return arg.slice("--agent=".length);
    if (arg === "--agent") {
      const next = argv[index + 1];
      return next === undefined || next.startsWith("--") ? "" : next;
    }
  }
  return undefined;
}

/** `{entry, api}` for an id the demo runs, else `{error}` naming the ids it runs. */
export function chooseDemoAgent(id, catalog) {
  const runnable = catalog.filter((entry) => FAKE_OF_API[entry.model.api]).map((entry) => entry.id);
  const others = catalog.map((entry) => entry.id).filter((other) => !runnable.includes(other));
  const choices = `the demo runs ${runnable.join(" or ")}${others.length ? ` (the catalog's ${others.join(", ")} have no fake model API yet)` : ""}`;
  if (!id) return { error: `--agent needs an agent's id: ${choices}` };
  const entry = catalog.find((candidate) => candidate.id === id);
  if (!entry)
    return {
      error: `no agent "${id}" in the catalog (src/server/adapters/agents/catalog.ts): ${choices}`,
    };
  if (!FAKE_OF_API[entry.model.api])
    return {
      error: `the demo has no fake of ${entry.name}'s model API (${entry.model.api}) to run it against offline: ${choices}`,
    };
  return { entry, api: FAKE_OF_API[entry.model.api] };
}

/**
 * The arguments for `build-sandbox-image.mjs`: the agents the recorded image has, so a run never installs others
 * (that would reach the npm registry) unless BATON_SANDBOX_AGENTS asks for them.
 */
export function imageBuildArgs(recorded, env) {
  if (env.BATON_SANDBOX_AGENTS !== undefined || !recorded) return ["--skip-build"];
  return ["--skip-build", `--agents=${(recorded.agents ?? []).join(",")}`];
}

/** Null when the image's agents layer holds the agent; otherwise why not and the command that adds it. */
export function whyNotInImage(entry, image, env) {
  if (!image?.image)
    return "no sandbox image was built (Docker answered, yet image.json names none): run `npm run sandbox-image`";
  const agents = image.agents ?? [];
  if (agents.includes(entry.id)) return null;
  const wanted = [...new Set([...agents, entry.id])].sort().join(",");
  return (
    `${entry.name} is not in the sandbox image (its agents layer holds ${agents.length ? agents.join(", ") : "no agent"}): ` +
    `run \`npm run sandbox-image -- --agents=${wanted}\`${env.BATON_SANDBOX_AGENTS !== undefined ? " and unset BATON_SANDBOX_AGENTS (it names the agents the demo's image build installs)" : ""}, then this demo again`
  );
}

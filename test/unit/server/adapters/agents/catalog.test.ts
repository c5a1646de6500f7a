// The agent catalog (src/server/adapters/agents/catalog.ts): every entry matches its schema, and each package is
// pinned by sandbox-agents/<id>/: package.json names exactly the entry's version, its lockfile holds that version
// with an integrity, so `npm ci` installs what the catalog says and nothing else.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  AGENT_CATALOG,
  AgentEntrySchema,
  agentArgv,
  defaultModelBaseUrl,
  findAgentEntry,
  MODEL_BASE_URL_SLOT,
  renderAgentFiles,
} from "../../../../../src/server/adapters/agents/catalog.js";

const ROOT = join(import.meta.dirname, "..", "..", "..", "..", "..");
const readJson = (...parts: string[]) => JSON.parse(readFileSync(join(ROOT, ...parts), "utf8"));

describe("the agent catalog", () => {
  it("ships claude-code, codex, gemini and opencode, each valid by the schema", () => {
    expect(AGENT_CATALOG.map((entry) => entry.id)).toEqual(["claude-code", "codex", "gemini", "opencode"]);
    for (const entry of AGENT_CATALOG) expect(AgentEntrySchema.parse(entry)).toEqual(entry);
  });

  it.each([
    ["a range instead of an exact version", { package: { name: "x", version: "^1.0.0" } }],
    ["a HOME file outside HOME", { files: [{ path: "../etc/passwd", content: "" }] }],
    ["an absolute HOME file", { files: [{ path: "/etc/passwd", content: "" }] }],
    ["a key header in upper case", { model: { ...AGENT_CATALOG[0]!.model, keyHeader: "X-Api-Key" } }],
    ["no CA variable", { caVariables: [] }],
  ])("refuses %s", (_, change) => {
    expect(AgentEntrySchema.safeParse({ ...AGENT_CATALOG[0], ...change }).success).toBe(false);
  });

  it.each(AGENT_CATALOG.map((entry) => [entry.id, entry] as const))(
    "sandbox-agents/%s pins the entry's exact version with an integrity",
    (id, entry) => {
      const manifest = readJson("sandbox-agents", id, "package.json");
      expect(manifest.private).toBe(true);
      expect(manifest.dependencies).toEqual({ [entry.package.name]: entry.package.version });
      const lock = readJson("sandbox-agents", id, "package-lock.json");
      expect(lock.lockfileVersion).toBe(3);
      expect(lock.packages[""].dependencies).toEqual(manifest.dependencies);
      const locked = lock.packages[`node_modules/${entry.package.name}`];
      expect(locked.version).toBe(entry.package.version);
      expect(locked.integrity).toMatch(/^sha512-[A-Za-z0-9+/]+={0,2}$/);
      expect(locked.bin?.[entry.bin]).toBeDefined();
      // Every package of the tree is pinned the same way, and no registry address is written down.
      for (const [path, pinned] of Object.entries<{ version?: string; integrity?: string; link?: boolean }>(
        lock.packages,
      ))
        if (path !== "" && !pinned.link) expect(pinned.integrity, path).toMatch(/^sha512-/);
      expect(JSON.stringify(lock)).not.toContain('"resolved"');
    },
  );

  it("fills the base URL slot in HOME files; production points codex at https://api.openai.com/v1", () => {
    const codex = findAgentEntry("codex")!;
    expect(defaultModelBaseUrl(codex)).toBe("https://api.openai.com/v1");
    const [config] = renderAgentFiles(codex);
    expect(config!.path).toBe(".codex/config.toml");
    expect(config!.content).toContain('base_url = "https://api.openai.com/v1"');
    expect(config!.content).toContain('env_key = "OPENAI_API_KEY"');
    expect(config!.content).toContain('wire_api = "responses"');
    const [faked] = renderAgentFiles(codex, "http://127.0.0.1:9/v1");
    expect(faked!.content).toContain('base_url = "http://127.0.0.1:9/v1"');
    const opencode = renderAgentFiles(findAgentEntry("opencode")!, "http://127.0.0.1:9/v1")[0]!;
    expect(JSON.parse(opencode.content).provider.baton.options.baseURL).toBe("http://127.0.0.1:9/v1");
    for (const entry of AGENT_CATALOG)
      for (const file of renderAgentFiles(entry)) expect(file.content).not.toContain(MODEL_BASE_URL_SLOT);
  });

  it("starts the agent from its install prefix's node_modules/.bin", () => {
    expect(agentArgv(findAgentEntry("gemini")!, "/opt/agents/gemini/")).toEqual([
      "/opt/agents/gemini/node_modules/.bin/gemini",
      "--acp",
    ]);
    expect(findAgentEntry("nope")).toBeUndefined();
  });
});

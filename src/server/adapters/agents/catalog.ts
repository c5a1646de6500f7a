// The coding agents Baton ships entries for, shaped like the ACP registry's: each one an npm package at an exact
// version (its lockfile in sandbox-agents/<id>/), how to start it, and what it needs to reach its vendor's model
// API through Baton's proxy: the host, the variable holding the key and the header the key travels in. Pure data.
import { z } from "zod";

/** A template's only variable: the model API's base URL (the vendor's own in production, a fake in tests). */
export const MODEL_BASE_URL_VARIABLE = "MODEL_BASE_URL";
/** How a template writes it. */
export const MODEL_BASE_URL_SLOT = `\${${MODEL_BASE_URL_VARIABLE}}`;

const VARIABLE = /^[A-Z_][A-Z0-9_]*$/;
/** A path under the agent's HOME: relative, no `..`. */
const HOME_PATH = /^(?!\/)(?!.*(^|\/)\.\.(\/|$))[A-Za-z0-9._/-]+$/;

export const AgentEntrySchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  name: z.string().min(1),
  package: z.strictObject({
    name: z.string().regex(/^(@[a-z0-9._-]+\/)?[a-z0-9._-]+$/),
    version: z.string().regex(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/, "must be an exact version"),
  }),
  /** The program, a name in the install prefix's `node_modules/.bin`. */
  bin: z.string().regex(/^[A-Za-z0-9._-]+$/),
  args: z.array(z.string()),
  /** Fixed variables (telemetry and update checks off, …). */
  env: z.record(z.string().regex(VARIABLE), z.string()),
  model: z.strictObject({
    /** The wire protocol the agent's SDK speaks. */
    api: z.enum(["anthropic-messages", "openai-responses", "gemini", "openai-chat-completions"]),
    host: z.string().regex(/^[a-z0-9.-]+$/),
    keyVariable: z.string().regex(VARIABLE),
    /** Lower case, as HTTP/2 sends it; the proxy swaps the key's placeholder in this header only. */
    keyHeader: z.string().regex(/^[a-z0-9-]+$/),
    /** Where the agent takes another base URL from, if it does by a variable (tests point it at a fake). */
    baseUrlVariable: z.string().regex(VARIABLE).optional(),
  }),
  /** Variables that make the agent trust an extra CA (the proxy's): each gets the CA file's path. */
  caVariables: z.array(z.string().regex(VARIABLE)).min(1),
  /** Files written under the agent's HOME before it starts; `${MODEL_BASE_URL}` is replaced in their content. */
  files: z.array(z.strictObject({ path: z.string().regex(HOME_PATH), content: z.string() })),
  /** The ACP session mode set right after `session/new` (and `session/load`), if any. */
  sessionMode: z.string().min(1).optional(),
});
export type AgentEntry = z.infer<typeof AgentEntrySchema> & { id: AgentId };
export type AgentId = "claude-code" | "codex" | "gemini" | "opencode";

// Codex knows its models by name: a custom provider still needs one it has metadata for (else its first message
// is a warning about fallback metadata). Its own sandbox is off: the box is the boundary (see sessionMode).
const CODEX_CONFIG = `model = "gpt-5.3-codex"
model_provider = "baton"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.baton]
name = "OpenAI through Baton"
base_url = "\${MODEL_BASE_URL}"
env_key = "OPENAI_API_KEY"
wire_api = "responses"

[analytics]
enabled = false

[otel]
exporter = "none"
`;

const OPENCODE_CONFIG = `${JSON.stringify(
  {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    model: "baton/gpt-4.1",
    small_model: "baton/gpt-4.1",
    provider: {
      baton: {
        npm: "@ai-sdk/openai-compatible",
        name: "OpenAI through Baton",
        options: { baseURL: MODEL_BASE_URL_SLOT, apiKey: "{env:OPENAI_API_KEY}" },
        models: { "gpt-4.1": { name: "gpt-4.1", tool_call: true } },
      },
    },
  },
  null,
  2,
)}\n`;

const GEMINI_SETTINGS = `${JSON.stringify(
  {
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    security: { auth: { selectedType: "gemini-api-key" } },
  },
  null,
  2,
)}\n`;

export const AGENT_CATALOG: readonly AgentEntry[] = [
  {
    id: "claude-code",
    name: "Claude Code",
    package: { name: "@zed-industries/claude-code-acp", version: "0.16.2" },
    bin: "claude-code-acp",
    args: [],
    env: {
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    },
    model: {
      api: "anthropic-messages",
      host: "api.anthropic.com",
      keyVariable: "ANTHROPIC_API_KEY",
      keyHeader: "x-api-key",
      baseUrlVariable: "ANTHROPIC_BASE_URL",
    },
    caVariables: ["NODE_EXTRA_CA_CERTS"],
    files: [],
  },
  {
    id: "codex",
    name: "Codex",
    package: { name: "@zed-industries/codex-acp", version: "0.16.0" },
    bin: "codex-acp",
    args: [],
    env: {},
    model: {
      api: "openai-responses",
      host: "api.openai.com",
      keyVariable: "OPENAI_API_KEY",
      keyHeader: "authorization",
    },
    caVariables: ["SSL_CERT_FILE", "CODEX_CA_CERTIFICATE"],
    files: [{ path: ".codex/config.toml", content: CODEX_CONFIG }],
    // It starts read-only and fails its writes silently. Not `auto`: that runs every command in Codex's own
    // bubblewrap sandbox, which fails ("bwrap: execvp codex-linux-sandbox") where it cannot create its helper (a
    // HOME under the temporary folder) or a namespace (most containers). The box is the boundary.
    sessionMode: "full-access",
  },
  {
    id: "gemini",
    name: "Gemini CLI",
    package: { name: "@google/gemini-cli", version: "0.61.0" },
    bin: "gemini",
    args: ["--acp"],
    env: { GEMINI_TELEMETRY_ENABLED: "false" },
    model: {
      api: "gemini",
      host: "generativelanguage.googleapis.com",
      keyVariable: "GEMINI_API_KEY",
      keyHeader: "x-goog-api-key",
      baseUrlVariable: "GOOGLE_GEMINI_BASE_URL",
    },
    caVariables: ["NODE_EXTRA_CA_CERTS"],
    files: [{ path: ".gemini/settings.json", content: GEMINI_SETTINGS }],
  },
  {
    id: "opencode",
    name: "opencode",
    package: { name: "opencode-ai", version: "1.18.33" },
    bin: "opencode",
    args: ["acp"],
    // It talks to its own server on loopback, which a proxy must not see.
    env: {
      NO_PROXY: "localhost,127.0.0.1",
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
    },
    model: {
      api: "openai-chat-completions",
      host: "api.openai.com",
      keyVariable: "OPENAI_API_KEY",
      keyHeader: "authorization",
    },
    // A Bun program: Bun reads NODE_EXTRA_CA_CERTS.
    caVariables: ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE"],
    files: [{ path: ".config/opencode/opencode.json", content: OPENCODE_CONFIG }],
  },
];

/** The entry of `id`, if Baton ships one. */
export function findAgentEntry(id: string): AgentEntry | undefined {
  return AGENT_CATALOG.find((entry) => entry.id === id);
}

/** The model API's base URL in production: its host over HTTPS, with the path prefix its SDK expects. */
export function defaultModelBaseUrl(entry: AgentEntry): string {
  return entry.model.api === "openai-responses" || entry.model.api === "openai-chat-completions"
    ? `https://${entry.model.host}/v1`
    : `https://${entry.model.host}`;
}

/** The entry's HOME files with `${MODEL_BASE_URL}` replaced (default: the vendor's own). */
export function renderAgentFiles(
  entry: AgentEntry,
  modelBaseUrl: string = defaultModelBaseUrl(entry),
): { path: string; content: string }[] {
  return entry.files.map(({ path, content }) => ({
    path,
    content: content.replaceAll(MODEL_BASE_URL_SLOT, modelBaseUrl),
  }));
}

/** Where the sandbox image's agents layer installs each agent: `<AGENTS_IN_BOX>/<id>`. */
export const AGENTS_IN_BOX = "/opt/baton-agents";
/** The agents' V8 code cache the image build makes (scripts/sandbox-image/agents.mjs), read-only in the box. */
export const AGENTS_COMPILE_CACHE = `${AGENTS_IN_BOX}/.compile-cache`;

/** The agent's argv given the folder it was installed into (`npm ci --prefix <prefix>`). */
export function agentArgv(entry: AgentEntry, installPrefix: string): string[] {
  return [`${installPrefix.replace(/\/+$/, "")}/node_modules/.bin/${entry.bin}`, ...entry.args];
}

/**
 * The headers a secret is swapped in when it is a catalog agent's model key (named as the entry's key variable and
 * approved for its model's host): its vendor's header only. Undefined for any other secret.
 */
export function modelKeyHeaders(name: string, destinations: readonly string[]): string[] | undefined {
  const entry = AGENT_CATALOG.find(
    (candidate) =>
      candidate.model.keyVariable === name &&
      destinations.some((destination) => hostOf(destination) === candidate.model.host),
  );
  return entry ? [entry.model.keyHeader] : undefined;
}

/** The host of an approved destination as stored (`api.acme.test`, `https://api.acme.test:8443/v2/`). */
function hostOf(destination: string): string {
  try {
    return new URL(destination.includes("://") ? destination : `https://${destination}`).hostname;
  } catch {
    return destination;
  }
}

/** What a catalog agent adds to the ACP adapter: its variables, and its set-up in the box before each start. */
export function catalogAgentOptions(entry: AgentEntry) {
  return {
    env: entry.env,
    ...(entry.sessionMode ? { sessionMode: entry.sessionMode } : {}),
    boxAgent: {
      agentName: entry.name,
      keyVariable: entry.model.keyVariable,
      modelHost: entry.model.host,
      files: renderAgentFiles(entry),
      caVariables: entry.caVariables,
      // The agent and the Node programs it starts read the image's compile cache (missing, they only compile).
      compileCache: AGENTS_COMPILE_CACHE,
    },
  };
}

// `baton serve`'s flags, checked all at once before anything opens or listens: a bad one is a UsageError naming
// the flag and what to fix (exit 1). Pure: no file is read here; --db and --seed are opened later and their
// failures name the flag too.
import { isIP } from "node:net";
import { z } from "zod";
import { UsageError } from "../errors.js";
import { parseTrustedProxy, type TrustedRange } from "../throttle/client-address.js";
import { AGENT_CATALOG, findAgentEntry } from "./adapters/agents/catalog.js";
import { checkIntegrationFlags } from "./adapters/integrations/settings.js";

const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

const urlWith = (schemes: readonly string[], example: string) =>
  z.string().refine(
    (value) => {
      if (!URL.canParse(value)) return false;
      const url = new URL(value);
      return schemes.includes(url.protocol) && url.hostname !== "";
    },
    `must be a ${schemes.map((s) => `${s}//`).join(" or ")} URL with a host, e.g. ${example}`,
  );
const filePath = z
  .string()
  .min(1, "must be a file path")
  .refine((value) => !value.includes("\0"), "must be a file path (it holds a NUL byte)");

/** `host:port` of a listener of its own (IPv6 in brackets); port 0 picks a free one. */
const listenAddress = (example: string) =>
  z
    .string()
    .regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, `must be host:port, e.g. ${example}`)
    .refine(
      (value) => Number(value.slice(value.lastIndexOf(":") + 1)) <= 65535,
      "must have a port 0 to 65535",
    )
    .transform((value) => {
      const colon = value.lastIndexOf(":");
      return { host: value.slice(0, colon).replace(/^\[|\]$/g, ""), port: Number(value.slice(colon + 1)) };
    });

/** A label that marks an issue as the agent's. */
const agentLabel = z
  .string()
  .min(1, "must be a label name, e.g. baton")
  .max(50, "must be at most 50 characters")
  .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), "must not hold control characters");

/** The sandbox and admin listeners' defaults: loopback, a port the system picks. */
export const DEFAULT_OPS_LISTEN = "127.0.0.1:0";
export const DEFAULT_ADMIN_LISTEN = "127.0.0.1:0";

export const ServeOptionsSchema = z.object({
  host: z
    .string()
    .refine(
      (value) => isIP(value) !== 0 || HOST_NAME.test(value),
      "must be an IP address or a host name to listen on, e.g. 127.0.0.1, ::1 or localhost",
    ),
  port: z.number().int().min(0, "must be 0 to 65535").max(65535, "must be 0 to 65535"),
  opsListen: listenAddress("127.0.0.1:8181").prefault(DEFAULT_OPS_LISTEN),
  adminListen: listenAddress("127.0.0.1:8182").prefault(DEFAULT_ADMIN_LISTEN),
  db: filePath.optional(),
  /** Checked for its shape when the store opens (postgres-errors.ts), where the message can redact it. */
  databaseUrl: z.string().min(1, "must be a postgres:// URL").optional(),
  seed: filePath.optional(),
  smtpUrl: urlWith(["smtp:", "smtps:"], "smtp://127.0.0.1:25").optional(),
  matcherUrl: urlWith(["http:", "https:"], "http://127.0.0.1:8089/match").optional(),
  dashboardUrl: urlWith(["http:", "https:"], "https://dashboard.example.test").optional(),
  /**
   * `manual`: turns wait for `baton admin task answer` or a stop; `scripted` (default): the seed's rules; `acp`: a
   * coding agent speaking the Agent Client Protocol (--agent-acp-command); or a catalog agent's id (claude-code,
   * codex, gemini, opencode), which runs in the task's box from the sandbox image's agents layer.
   */
  agent: z
    .enum(
      ["scripted", "manual", "acp", ...AGENT_CATALOG.map((entry) => entry.id)],
      `must be scripted, manual, acp or a catalog agent (${AGENT_CATALOG.map((entry) => entry.id).join(", ")})`,
    )
    .optional(),
  agentCommand: filePath.optional(),
  /** The ACP agent's program and arguments as a JSON array of strings, e.g. ["gemini","--acp"]. */
  agentAcpCommand: z
    .string()
    .transform((value, context) => {
      const argv = parseArgv(value);
      if (argv === undefined) {
        context.addIssue({
          code: "custom",
          message:
            'must be the agent program and its arguments as a JSON array of strings, e.g. \'["gemini","--acp"]\'',
        });
        return z.NEVER;
      }
      return argv;
    })
    .optional(),
  agentTimeout: z
    .number()
    .int("must be a whole number of seconds")
    .min(1, "must be 1 to 86400 seconds")
    .max(86_400, "must be 1 to 86400 seconds")
    .optional(),
  workDir: filePath.optional(),
  /** How long a claim on running work lasts unrenewed: another instance takes it over after that (default 30). */
  leaseSeconds: z
    .number()
    .int("must be a whole number of seconds")
    .min(3, "must be 3 to 3600 seconds")
    .max(3600, "must be 3 to 3600 seconds")
    .optional(),
  /** Dynamically registered OAuth clients held at once (default 10000). */
  oauthMaxClients: z
    .number()
    .int("must be a whole number of clients")
    .min(1, "must be 1 to 10000000 clients")
    .max(10_000_000, "must be 1 to 10000000 clients")
    .optional(),
  secretKeyFile: filePath.optional(),
  proxyUrl: urlWith(["http:"], "http://10.0.0.1:3128").optional(),
  sandboxDriver: z.enum(["docker", "namespace", "none"], "must be docker, namespace or none").default("none"),
  sandboxImage: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._/:@-]{0,254}$/, "must be an image name such as baton-sandbox:0.1.0-…")
    .optional(),
  sandboxProxy: z
    .string()
    .regex(/^(\[[0-9A-Fa-f:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, "must be host:port, e.g. 127.0.0.1:8081")
    .optional(),
  checkoutRoot: filePath.optional(),
  sandboxUids: z
    .string()
    .regex(/^\d{1,10}-\d{1,10}$/, "must be a range of host uids, first-last, e.g. 200000-265535")
    .optional(),
  /** Ready boxes of the default image kept for new sandboxes (default DEFAULT_POOL_SIZE; 0: no pool). */
  sandboxPoolSize: z
    .number()
    .int("must be a whole number of boxes")
    .min(0, "must be 0 to 64 boxes")
    .max(64, "must be 0 to 64 boxes")
    .optional(),
  /** The pool makes a box only while the machine has this many MiB available (default DEFAULT_POOL_MIN_FREE_MIB). */
  sandboxPoolMinFreeMemory: z
    .number()
    .int("must be a whole number of MiB")
    .min(0, "must be 0 to 1048576 MiB")
    .max(1_048_576, "must be 0 to 1048576 MiB")
    .optional(),
  publicUrl: urlWith(["http:", "https:"], "https://baton.example.test").optional(),
  /** The public listener's fronts (Caddy, nginx): only their X-Forwarded-For is read; none by default. */
  trustedProxy: z
    .array(z.string())
    .default([])
    .transform((values, context) => {
      const ranges: TrustedRange[] = [];
      for (const value of values) {
        const range = parseTrustedProxy(value);
        if (range === null) {
          context.addIssue({
            code: "custom",
            message: `must be the front's IP address or a CIDR range, e.g. 127.0.0.1, 10.0.0.0/8 or fd00::/8 (not ${JSON.stringify(value.slice(0, 64))})`,
          });
          return z.NEVER;
        }
        ranges.push(range);
      }
      return ranges;
    }),
  codehostAppId: z
    .string()
    .regex(/^\d{1,20}$/, "must be the App's numeric id, e.g. 123456")
    .optional(),
  codehostAppSlug: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,99}$/, "must be the App's URL name, e.g. acme-baton")
    .optional(),
  codehostPrivateKeyFile: filePath.optional(),
  codehostClientId: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,200}$/, "must be the App's client id, e.g. Iv1.0123456789abcdef")
    .optional(),
  codehostClientSecretFile: filePath.optional(),
  codehostWebhookSecretFile: filePath.optional(),
  codehostApiUrl: urlWith(["https:", "http:"], "https://api.github.com").optional(),
  codehostWebUrl: urlWith(["https:", "http:"], "https://github.com").optional(),
  codehostAgentLabel: agentLabel.optional(),
  codehostAgentLogin: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/, "must be a code-host login, e.g. acme-agent")
    .optional(),
  trackerClientId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,200}$/, "must be the OAuth application's client id")
    .optional(),
  trackerClientSecretFile: filePath.optional(),
  trackerWebhookSecretFile: filePath.optional(),
  trackerApiUrl: urlWith(["https:", "http:"], "https://api.linear.app").optional(),
  trackerWebUrl: urlWith(["https:", "http:"], "https://linear.app").optional(),
  trackerAgentLabel: agentLabel.optional(),
});
export type ServeFlags = z.infer<typeof ServeOptionsSchema>;

const FLAG_NAMES: Record<keyof ServeFlags, string> = {
  host: "--host",
  port: "--port",
  opsListen: "--ops-listen",
  adminListen: "--admin-listen",
  db: "--db",
  databaseUrl: "--database-url",
  seed: "--seed",
  smtpUrl: "--smtp-url",
  matcherUrl: "--matcher-url",
  dashboardUrl: "--dashboard-url",
  agent: "--agent",
  agentCommand: "--agent-command",
  agentAcpCommand: "--agent-acp-command",
  agentTimeout: "--agent-timeout",
  workDir: "--work-dir",
  leaseSeconds: "--lease-seconds",
  oauthMaxClients: "--oauth-max-clients",
  secretKeyFile: "--secret-key-file",
  proxyUrl: "--proxy-url",
  sandboxDriver: "--sandbox-driver",
  sandboxImage: "--sandbox-image",
  sandboxProxy: "--sandbox-proxy",
  checkoutRoot: "--checkout-root",
  sandboxUids: "--sandbox-uids",
  sandboxPoolSize: "--sandbox-pool-size",
  sandboxPoolMinFreeMemory: "--sandbox-pool-min-free-memory",
  publicUrl: "--public-url",
  trustedProxy: "--trusted-proxy",
  codehostAppId: "--codehost-app-id",
  codehostAppSlug: "--codehost-app-slug",
  codehostPrivateKeyFile: "--codehost-private-key-file",
  codehostClientId: "--codehost-client-id",
  codehostClientSecretFile: "--codehost-client-secret-file",
  codehostWebhookSecretFile: "--codehost-webhook-secret-file",
  codehostApiUrl: "--codehost-api-url",
  codehostWebUrl: "--codehost-web-url",
  codehostAgentLabel: "--codehost-agent-label",
  codehostAgentLogin: "--codehost-agent-login",
  trackerClientId: "--tracker-client-id",
  trackerClientSecretFile: "--tracker-client-secret-file",
  trackerWebhookSecretFile: "--tracker-webhook-secret-file",
  trackerApiUrl: "--tracker-api-url",
  trackerWebUrl: "--tracker-web-url",
  trackerAgentLabel: "--tracker-agent-label",
};

/** Checks every flag; the first bad one is named (never its value: a URL may carry a password). */
export function parseServeFlags(input: unknown): ServeFlags {
  const parsed = ServeOptionsSchema.safeParse(input);
  if (parsed.success) {
    if (parsed.data.agent !== undefined && parsed.data.agentCommand !== undefined)
      throw new UsageError(
        "--agent and --agent-command each pick the agent: give one (--agent-command runs your program; --agent manual waits for baton admin task answer)",
        { path: "--agent" },
      );
    checkAcpFlags(parsed.data);
    if (parsed.data.db !== undefined && parsed.data.databaseUrl !== undefined)
      throw new UsageError(
        "--db and --database-url each pick the store: give one (--db: a SQLite file on this machine; --database-url: PostgreSQL, shared by several instances)",
        { path: "--database-url" },
      );
    checkIntegrationFlags(parsed.data);
    return parsed.data;
  }
  const issue = parsed.error.issues[0]!;
  const flag = FLAG_NAMES[issue.path[0] as keyof ServeFlags] ?? String(issue.path[0]);
  throw new UsageError(`${flag} ${issue.message}`, { path: flag });
}

/** A JSON array of non-empty strings without NUL bytes (the program, then its arguments); else undefined. */
function parseArgv(value: string): string[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || parsed.length > 100) return undefined;
  const ok = parsed.every((item) => typeof item === "string" && item !== "" && !item.includes("\0"));
  return ok ? (parsed as string[]) : undefined;
}

/** `--agent acp` needs its command and the command needs `--agent acp`; a catalog agent runs in a box. */
function checkAcpFlags(flags: ServeFlags): void {
  const acp = flags.agent === "acp";
  if (acp && flags.agentAcpCommand === undefined)
    throw new UsageError(
      '--agent acp needs --agent-acp-command: the ACP agent\'s program and arguments as a JSON array, e.g. --agent-acp-command \'["gemini","--acp"]\'',
      { path: "--agent-acp-command" },
    );
  if (!acp && flags.agentAcpCommand !== undefined)
    throw new UsageError("--agent-acp-command is only for --agent acp: add --agent acp, or drop it", {
      path: "--agent-acp-command",
    });
  const entry = flags.agent ? findAgentEntry(flags.agent) : undefined;
  if (entry && flags.sandboxDriver === "none")
    throw new UsageError(
      `--agent ${entry.id} runs ${entry.name} in the task's box: add --sandbox-driver docker (or namespace), and build its layer with npm run sandbox-image -- --agents=${entry.id}`,
      { path: "--sandbox-driver" },
    );
}

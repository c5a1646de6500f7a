// `baton serve`: the reference orchestrator. Flags and printing only; the service (src/server/serve.ts) loads
// lazily and checks every flag before it opens or listens.
import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { collect, wholeNumberIn } from "../flags.js";
import { writeLine } from "../io.js";

interface ServeFlags {
  host: string;
  port: number;
  opsListen?: string;
  adminListen?: string;
  db?: string;
  databaseUrl?: string;
  seed?: string;
  json?: boolean;
  smtpUrl?: string;
  matcherUrl?: string;
  dashboardUrl?: string;
  agentCommand?: string;
  agentTimeout?: number;
  agent?: "scripted" | "manual" | "acp";
  agentAcpCommand?: string;
  workDir?: string;
  leaseSeconds?: number;
  oauthMaxClients?: number;
  secretKeyFile?: string;
  proxyUrl?: string;
  sandboxDriver?: "docker" | "namespace" | "none";
  sandboxImage?: string;
  sandboxProxy?: string;
  checkoutRoot?: string;
  sandboxUids?: string;
  sandboxPoolSize?: number;
  sandboxPoolMinFreeMemory?: number;
  publicUrl?: string;
  trustedProxy?: string[];
  codehostAppId?: string;
  codehostAppSlug?: string;
  codehostPrivateKeyFile?: string;
  codehostClientId?: string;
  codehostClientSecretFile?: string;
  codehostWebhookSecretFile?: string;
  codehostApiUrl?: string;
  codehostWebUrl?: string;
  codehostAgentLabel?: string;
  codehostAgentLogin?: string;
  trackerClientId?: string;
  trackerClientSecretFile?: string;
  trackerWebhookSecretFile?: string;
  trackerApiUrl?: string;
  trackerWebUrl?: string;
  trackerAgentLabel?: string;
}

export function declare(command: Command, { io, action }: CommandContext): void {
  command
    .option("--host <host>", "address of the public API", "127.0.0.1")
    .option("--port <port>", "port of the public API; 0 picks a free one", wholeNumberIn(0, 65535), 0)
    .option(
      "--ops-listen <host:port>",
      "the sandbox listener: only /ops/v1, the box forwarders' target (default 127.0.0.1:0)",
    )
    .option(
      "--admin-listen <host:port>",
      "the admin listener: the admin API and baton proxy's routes (default 127.0.0.1:0)",
    )
    .option("--db <file>", "SQLite file (default: $XDG_DATA_HOME/baton/serve.sqlite)")
    .option(
      "--database-url <url>",
      "PostgreSQL instead of --db, shared by several instances: postgres://user@host:5432/db (password in PGPASSWORD); needs --secret-key-file",
    )
    .option("--seed <file.json>", "load workspaces, repositories, environments and secrets before listening")
    .option("--json", "print the listeners' addresses as JSON: url (public), opsUrl, adminUrl")
    .option(
      "--smtp-url <url>",
      "SMTP relay for capability-request and sign-in e-mail, e.g. smtp://127.0.0.1:25 (without it, on loopback only, sign-in links are printed on stderr)",
    )
    .option(
      "--matcher-url <url>",
      "model endpoint for capability-request matching (token: BATON_MATCHER_TOKEN)",
    )
    .option("--dashboard-url <url>", "base of dashboard links in e-mail (default: <service url>/dashboard)")
    .option(
      "--agent <mode>",
      "scripted (default): the seed's agent rules answer; manual: each turn waits until stopped or answered with `baton admin task answer`; acp: the coding agent of --agent-acp-command (host sandboxes)",
    )
    .option(
      "--agent-acp-command <json>",
      'with --agent acp: the ACP agent\'s program and arguments as a JSON array, e.g. \'["gemini","--acp"]\'',
    )
    .option(
      "--agent-command <program>",
      "run turns with this agent program (turn as JSON on stdin, reply as JSON on stdout); default: the scripted agent",
    )
    .option(
      "--agent-timeout <seconds>",
      "time limit of one turn of --agent-command or --agent acp (default 1800)",
      wholeNumberIn(1, 86_400, "seconds"),
    )
    .option(
      "--lease-seconds <seconds>",
      "how long an instance's claim on a running operation or turn lasts unrenewed; another instance takes it over after that (default 30; the same on every instance)",
      wholeNumberIn(3, 3600, "seconds"),
    )
    .option(
      "--oauth-max-clients <count>",
      "how many dynamically registered OAuth clients the service holds at once; registration answers 403 when full (default 10000; unused clients expire after 24 h)",
      wholeNumberIn(1, 10_000_000, "clients"),
    )
    .option(
      "--work-dir <dir>",
      "sandboxes and the local code host's repositories (default: work/ beside --db)",
    )
    .option(
      "--secret-key-file <file>",
      "AES-256 key sealing secret values at rest, created 0600 at first start (default: <db>.key)",
    )
    .option(
      "--proxy-url <url>",
      "the baton proxy sandboxes go out through (given to them as BATON_PROXY_URL)",
    )
    .option(
      "--sandbox-driver <driver>",
      "docker or namespace: POST /admin/v1/sandboxes provisions a real box; none (default): a lease only",
    )
    .option(
      "--sandbox-image <tag>",
      "image for new engagements (default: the one `npm run sandbox-image` built)",
    )
    .option(
      "--sandbox-proxy <host:port>",
      "where baton proxy listens; boxes reach it and nothing else outside",
    )
    .option(
      "--checkout-root <dir>",
      "the folder admin sandbox requests may copy checkouts from (default: none, checkouts refused)",
    )
    .option(
      "--sandbox-uids <first-last>",
      "host uids for sandbox boxes, one per box, used by no account (default 200000-265535)",
    )
    .option(
      "--sandbox-pool-size <count>",
      "ready boxes of the default image kept for new sandboxes (no task, no credentials); 0 turns the pool off (default 2)",
      wholeNumberIn(0, 64, "boxes"),
    )
    .option(
      "--sandbox-pool-min-free-memory <MiB>",
      "the pool makes a box only while the machine has this much memory available (default 4096)",
      wholeNumberIn(0, 1_048_576, "MiB"),
    )
    .option(
      "--public-url <url>",
      "the service's address as browsers and platforms reach it (OAuth issuer, install callbacks, webhooks); default: the listener's",
    )
    .option(
      "--trusted-proxy <address or CIDR>",
      "a TLS front of the public listener (Caddy, nginx) whose X-Forwarded-For names the client, for throttles and logs; repeatable. Without it the header is ignored",
      collect,
    )
    .option(
      "--codehost-app-id <id>",
      "the code-host App's id (with --codehost-app-slug, --codehost-private-key-file, --codehost-client-id, --codehost-client-secret-file)",
    )
    .option("--codehost-app-slug <slug>", "the App's URL name (its installation page is <web>/apps/<slug>)")
    .option(
      "--codehost-private-key-file <file.pem>",
      "the App's private key (RS256 JWTs); default: the local code host",
    )
    .option(
      "--codehost-client-id <id>",
      "the App's client id: the install callback checks the installation is the installer's",
    )
    .option("--codehost-client-secret-file <file>", "a client secret of the App (with --codehost-client-id)")
    .option(
      "--codehost-webhook-secret-file <file>",
      "the App's webhook secret; enables POST /webhooks/codehost",
    )
    .option("--codehost-api-url <url>", "the code host's REST API (default https://api.github.com)")
    .option("--codehost-web-url <url>", "the code host's web address (default https://github.com)")
    .option("--codehost-agent-label <label>", "an issue with this label is the agent's (default baton)")
    .option("--codehost-agent-login <login>", "an issue assigned to this account is the agent's")
    .option(
      "--tracker-client-id <id>",
      "the tracker OAuth application's client id (with --tracker-client-secret-file)",
    )
    .option("--tracker-client-secret-file <file>", "its client secret; default: the local tracker")
    .option(
      "--tracker-webhook-secret-file <file>",
      "the tracker webhook's signing secret; enables POST /webhooks/tracker",
    )
    .option("--tracker-api-url <url>", "the tracker's API (default https://api.linear.app)")
    .option(
      "--tracker-web-url <url>",
      "the tracker's web address, for its authorization page (default https://linear.app)",
    )
    .option("--tracker-agent-label <label>", "an issue with this label is the agent's (default baton)")
    .addHelpText(
      "after",
      "\nThe admin listener serves the admin API when BATON_ADMIN_TOKEN is set and the egress proxy's internal routes\nwhen BATON_PROXY_TOKEN is set (each at least 32 random bytes: openssl rand -hex 32); with neither it is not\nopened. `baton admin --url` and `baton proxy --serve-url` take its address. Stop with SIGTERM or Ctrl-C.",
    )
    .action(
      action(async ({ json, ...flags }: ServeFlags) => {
        // Listen for SIGTERM/SIGINT before anything else: a stop that arrives during start-up still stops cleanly.
        const signals = listenForStop();
        try {
          const { startService } = await import("../../server/serve.js");
          const service = await startService({
            ...flags,
            env: io.env,
            printLine: (line) => writeLine(io.stderr, `baton serve: ${line}`),
          });
          const { url, opsUrl, adminUrl } = service;
          for (const warning of service.warnings) writeLine(io.stderr, `baton serve: ${warning}`);
          if (json) writeLine(io.stdout, JSON.stringify({ url, opsUrl, adminUrl }));
          else {
            writeLine(io.stdout, `baton serve: listening on ${url}`);
            writeLine(io.stdout, `baton serve: sandboxes (/ops/v1) on ${opsUrl}`);
            writeLine(
              io.stdout,
              adminUrl
                ? `baton serve: admin on ${adminUrl}`
                : "baton serve: no admin listener (start with BATON_ADMIN_TOKEN or BATON_PROXY_TOKEN to open one)",
            );
          }
          await signals.stopped;
          await service.stop();
          return undefined;
        } finally {
          signals.dispose();
        }
      }),
    );
}

function listenForStop(): { stopped: Promise<void>; dispose(): void } {
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  return {
    stopped,
    dispose() {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
    },
  };
}

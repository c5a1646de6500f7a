// `baton serve`: the reference orchestrator. Flags only; the service loads lazily.
import { type Command, InvalidArgumentError } from "commander";
import type { CommandContext } from "../context.js";

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InvalidArgumentError("must be 0 to 65535");
  return port;
}

export function registerServe(program: Command, context: CommandContext): void {
  program
    .command("serve")
    .description("run the reference orchestrator (operations transport and admin API) on an SQLite store")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--port <port>", "port to listen on; 0 picks a free one", parsePort, 0)
    .option("--db <file>", "SQLite file (default: $XDG_DATA_HOME/baton/serve.sqlite)")
    .option("--seed <file.json>", "load workspaces, repositories, environments and secrets before listening")
    .option("--json", "print the listening address as JSON")
    .option("--smtp-url <url>", "SMTP relay for capability-request e-mail, e.g. smtp://127.0.0.1:25")
    .option(
      "--matcher-url <url>",
      "model endpoint for capability-request matching (token: BATON_MATCHER_TOKEN)",
    )
    .option("--dashboard-url <url>", "base of dashboard links in e-mail (default: <service url>/dashboard)")
    .addHelpText(
      "after",
      "\nThe admin API is enabled when BATON_ADMIN_TOKEN is set. Stop with SIGTERM or Ctrl-C.",
    )
    .action(
      context.action(
        async (options: {
          host: string;
          port: number;
          db?: string;
          seed?: string;
          json?: boolean;
          smtpUrl?: string;
          matcherUrl?: string;
          dashboardUrl?: string;
        }) => {
          const { runServe } = await import("../../server/serve.js");
          return runServe({ ...options, json: options.json === true, io: context.io });
        },
      ),
    );
}

// `baton admin sandbox`: asks a running `baton serve` for a sandbox lease and turn, and prints them as shell
// exports (or the service's answer with --json).

import type { Command } from "commander";
import { createAdminSandbox } from "../../../client/admin-client.js";
import type { CommandContext } from "../../context.js";
import { writeJson, writeLine } from "../../io.js";
import { LIFETIME_SECONDS } from "./lifetime.js";
import { quote } from "./quote.js";

interface Flags {
  url: string;
  workspace: string;
  engagement: string;
  leaseTtl?: number;
  turnTtl?: number;
  json?: boolean;
}

export function declare(command: Command, { io, action }: CommandContext): void {
  command
    .requiredOption(
      "--url <url>",
      "the admin listener of baton serve (its adminUrl), e.g. http://127.0.0.1:8182",
    )
    .requiredOption("--workspace <id>", "workspace id")
    .requiredOption("--engagement <id>", "engagement id (created when new; an existing one is a revival)")
    .option(
      "--lease-ttl <seconds>",
      `sandbox lease lifetime (${LIFETIME_SECONDS.range})`,
      LIFETIME_SECONDS.parse,
    )
    .option(
      "--turn-ttl <seconds>",
      `turn authorisation lifetime (${LIFETIME_SECONDS.range})`,
      LIFETIME_SECONDS.parse,
    )
    .option("--json", "print the service's answer as JSON")
    .action(
      action(async (flags: Flags) => {
        const answer = await createAdminSandbox({ url: flags.url, env: io.env }, flags);
        const { env } = answer;
        if (flags.json) writeJson(io.stdout, answer);
        else
          writeLine(
            io.stdout,
            `export BATON_OPS_URL=${quote(env.BATON_OPS_URL)} BATON_TURN_TOKEN=${quote(env.BATON_TURN_TOKEN)} BATON_SANDBOX_LEASE=${quote(env.BATON_SANDBOX_LEASE)}`,
          );
        return undefined;
      }),
    );
}

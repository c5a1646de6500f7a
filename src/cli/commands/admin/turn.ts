// `baton admin turn`: asks a running `baton serve` for a follow-up turn token, printed as a shell export (or the
// service's answer with --json).

import type { Command } from "commander";
import { createAdminTurn } from "../../../client/admin-client.js";
import type { CommandContext } from "../../context.js";
import { writeJson, writeLine } from "../../io.js";
import { LIFETIME_SECONDS } from "./lifetime.js";
import { quote } from "./quote.js";

export function declare(command: Command, { io, action }: CommandContext): void {
  command
    .requiredOption("--url <url>", "the admin listener of baton serve (its adminUrl)")
    .requiredOption("--engagement <id>", "engagement id")
    .option(
      "--ttl <seconds>",
      `turn authorisation lifetime (${LIFETIME_SECONDS.range})`,
      LIFETIME_SECONDS.parse,
    )
    .option("--json", "print the service's answer as JSON")
    .action(
      action(async (flags: { url: string; engagement: string; ttl?: number; json?: boolean }) => {
        const answer = await createAdminTurn({ url: flags.url, env: io.env }, flags);
        if (flags.json) writeJson(io.stdout, answer);
        else writeLine(io.stdout, `export BATON_TURN_TOKEN=${quote(answer.turnToken)}`);
        return undefined;
      }),
    );
}

// `baton admin token create`: asks a running `baton serve` for a personal access token for a member. The token is
// printed once, alone on stdout (for `$(…)`); what it is goes to stderr. The service keeps only its hash.

import { type Command, InvalidArgumentError } from "commander";
import { createAdminToken } from "../../../client/admin-client.js";
import type { CommandContext } from "../../context.js";
import { writeJson, writeLine } from "../../io.js";

interface Flags {
  url: string;
  email: string;
  name: string;
  lifetime: 30 | 90 | 365;
  json?: boolean;
}

function parseLifetime(value: string): 30 | 90 | 365 {
  if (value === "30" || value === "90" || value === "365") return Number(value) as 30 | 90 | 365;
  throw new InvalidArgumentError("must be 30, 90 or 365 (days)");
}

export function declare(command: Command, { io, action }: CommandContext): void {
  command
    .requiredOption("--url <url>", "the admin listener of baton serve (its adminUrl)")
    .requiredOption("--email <email>", "the member's e-mail")
    .requiredOption("--name <name>", "a name to recognise the token by, e.g. laptop or ci")
    .option("--lifetime <days>", "30, 90 or 365", parseLifetime, 90 as const)
    .option("--json", "print the service's answer as JSON")
    .action(
      action(async (flags: Flags) => {
        const answer = await createAdminToken(
          { url: flags.url, env: io.env },
          { email: flags.email, name: flags.name, lifetimeDays: flags.lifetime },
        );
        if (flags.json) writeJson(io.stdout, answer);
        else {
          writeLine(io.stdout, answer.token);
          writeLine(
            io.stderr,
            `Token "${answer.name}" for ${answer.email} (…${answer.lastFour}), expires ${answer.expiresAt}. It is shown only now; store it, or revoke it with DELETE /v1/me/token.`,
          );
        }
        return undefined;
      }),
    );
}

// `baton admin sandbox|turn`: asks a running `baton serve` for sandbox credentials or a follow-up turn, and prints
// them as shell exports (or the service's answer with --json).
import { type Command, InvalidArgumentError } from "commander";
import type { CommandContext } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { writeJson, writeLine } from "../io.js";

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds <= 0)
    throw new InvalidArgumentError("must be a whole number of seconds");
  return seconds;
}

const quote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

export function registerAdminCommands(program: Command, context: CommandContext): void {
  const { io } = context;
  const print = (json: boolean | undefined, answer: unknown, exports: string) => {
    if (json) writeJson(io.stdout, answer);
    else writeLine(io.stdout, exports);
    return EXIT.ok;
  };
  const admin = program
    .command("admin")
    .description("provision sandboxes and turns on a running baton serve (token from BATON_ADMIN_TOKEN)");
  admin
    .command("sandbox")
    .description(
      "create a sandbox lease and turn for an engagement and print the variables the sandbox needs",
    )
    .requiredOption("--url <url>", "the service address, e.g. http://127.0.0.1:8080")
    .requiredOption("--workspace <id>", "workspace id")
    .requiredOption("--engagement <id>", "engagement id (created when new; an existing one is a revival)")
    .option("--lease-ttl <seconds>", "sandbox lease lifetime", parseSeconds)
    .option("--turn-ttl <seconds>", "turn authorisation lifetime", parseSeconds)
    .option("--json", "print the service's answer as JSON")
    .action(
      context.action(
        async (options: {
          url: string;
          workspace: string;
          engagement: string;
          leaseTtl?: number;
          turnTtl?: number;
          json?: boolean;
        }) => {
          const { createAdminSandbox } = await import("../../server/admin-client.js");
          const answer = await createAdminSandbox({ url: options.url, env: io.env }, options);
          const { env } = answer;
          return print(
            options.json,
            answer,
            `export BATON_OPS_URL=${quote(env.BATON_OPS_URL)} BATON_TURN_TOKEN=${quote(env.BATON_TURN_TOKEN)} BATON_SANDBOX_LEASE=${quote(env.BATON_SANDBOX_LEASE)}`,
          );
        },
      ),
    );
  admin
    .command("turn")
    .description("issue a follow-up turn token for an engagement")
    .requiredOption("--url <url>", "the service address")
    .requiredOption("--engagement <id>", "engagement id")
    .option("--ttl <seconds>", "turn authorisation lifetime", parseSeconds)
    .option("--json", "print the service's answer as JSON")
    .action(
      context.action(async (options: { url: string; engagement: string; ttl?: number; json?: boolean }) => {
        const { createAdminTurn } = await import("../../server/admin-client.js");
        const answer = await createAdminTurn({ url: options.url, env: io.env }, options);
        return print(options.json, answer, `export BATON_TURN_TOKEN=${quote(answer.turnToken)}`);
      }),
    );
}

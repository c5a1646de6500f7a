// `baton env request-capability`: flags only; the implementation loads when it runs.
import { type Command, Option } from "commander";
import type { CommandContext } from "../context.js";

export function registerEnvRequestCapability(env: Command, context: CommandContext): void {
  env
    .command("request-capability")
    .description("record missing access for a repository, or report an outcome on the matching request")
    .requiredOption("--repo <owner/name>", "the repository the access is for")
    .requiredOption(
      "--capability <kind>",
      "registry_access, service_credential, api_key, data_access or other (legacy labels are accepted)",
    )
    .requiredOption("--target <target>", "host, URL (no credentials, query or fragment) or resource name")
    .option("--reason <text>", "what failed and why access is needed; never a secret or raw log")
    .addOption(
      new Option("--evidence <outcome>", "report an outcome on the matching request").choices([
        "verified",
        "authentication",
        "permission",
        "network",
        "provider",
      ]),
    )
    .addOption(new Option("--status <code>", "HTTP status with the evidence").choices(["401", "403"]))
    .option("--json", "print the record as JSON")
    .action(
      context.action(
        async (flags: {
          repo: string;
          capability: string;
          target: string;
          reason?: string;
          evidence?: string;
          status?: string;
          json?: boolean;
        }) => {
          const { requestCapability } = await import("../../capability/client/request-capability.js");
          return requestCapability({ ...flags, json: flags.json === true, io: context.io });
        },
      ),
    );
}

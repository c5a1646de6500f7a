// `baton op`: environment operations. `op get <id>` shows one; the implementation loads when it runs.
import type { Command } from "commander";
import type { CommandContext } from "../context.js";

export function registerOpCommands(program: Command, context: CommandContext): Command {
  const op = program.command("op").description("show environment operations");
  op.command("get")
    .description("show an operation (exit 6 when it failed)")
    .argument("<id>", "the operation id printed by `baton env activate`")
    .option("--json", "print the operation as JSON")
    .action(
      context.action(async (id: string, flags: { json?: boolean }) => {
        // Capability requests are shown here too: `op get` reports and redelivers their e-mail.
        const { isCapabilityRequestId } = await import("../../transport/wire.js");
        if (isCapabilityRequestId(id)) {
          const { showCapabilityRequest } = await import("../../capability/client/show-request.js");
          return showCapabilityRequest({ id, json: flags.json === true, io: context.io });
        }
        const { showOperation } = await import("../../activation/show-operation.js");
        return showOperation({ id, json: flags.json === true, io: context.io });
      }),
    );
  return op;
}

// `baton op get <id>`: an operation (exit 6 when it failed) or, for a `cr_` id, a capability request with its
// e-mail delivery (failed deliveries are queued again).
import "../zod-jitless.js";
import type { Command } from "commander";
import { readOperation, readProxyRefusals } from "../../../activation/read-operation.js";
import { showCapabilityRequest } from "../../../capability-client/show-request.js";
import { isCapabilityRequestId } from "../../../transport/wire.js";
import type { CommandContext } from "../../context.js";
import { writeJson, writeLines } from "../../io.js";
import { renderOperation, renderProxyRefusals, renderRequestView } from "./render.js";

export function declare(command: Command, { io, log, action }: CommandContext): void {
  command
    .argument(
      "<id>",
      "an operation id (op_…, printed by `baton env activate`) or a capability request id (cr_…)",
    )
    .option("--json", "print the operation (or the capability request) as JSON")
    .action(
      action(async (id: string, flags: { json?: boolean }) => {
        if (isCapabilityRequestId(id)) {
          const view = await showCapabilityRequest({ id, env: io.env, log });
          if (flags.json) writeJson(io.stdout, view);
          else writeLines(io.stdout, renderRequestView(view));
          return undefined;
        }
        const operation = await readOperation({ id, env: io.env, log });
        if (flags.json) writeJson(io.stdout, operation);
        else {
          writeLines(io.stdout, renderOperation(operation));
          writeLines(io.stdout, renderProxyRefusals(await readProxyRefusals({ env: io.env, log })));
        }
        return operation.state === "failed" ? { failed: "operation_failed" } : undefined;
      }),
    );
}

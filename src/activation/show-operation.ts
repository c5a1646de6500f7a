// `baton op get <id>`: one operation, for people (short) or machines (`--json`, the Operation document).
import { EXIT, type ExitCode } from "../cli/exit-codes.js";
import { type CliIo, writeJson, writeLine } from "../cli/io.js";
import { createOpsClient, requireOpsSettings } from "../transport/index.js";
import type { Operation } from "../transport/wire.js";

export interface ShowOperationOptions {
  id: string;
  json: boolean;
  io: CliIo;
}

/** Exit 6 when the operation failed (an environment command's failure), 0 otherwise. */
export async function showOperation(options: ShowOperationOptions): Promise<ExitCode> {
  const client = createOpsClient(requireOpsSettings(options.io.env));
  try {
    const operation = await client.getOperation(options.id);
    if (options.json) writeJson(options.io.stdout, operation);
    else for (const line of renderOperation(operation)) writeLine(options.io.stdout, line);
    return operation.state === "failed" ? EXIT.environmentFailed : EXIT.ok;
  } finally {
    await client.close();
  }
}

export function renderOperation(op: Operation): string[] {
  const lines = [
    `Operation ${op.id}: ${op.kind} ${op.repository}`,
    `State: ${op.state}${op.finishedAt ? ` (finished ${op.finishedAt})` : ` (since ${op.updatedAt})`}`,
  ];
  if (op.error) lines.push(`Error: ${op.error.reason} (${op.error.code})`);
  if (op.result) {
    lines.push(`Overlay revision: ${op.result.overlayRevision}`);
    for (const v of op.result.variables) lines.push(`  ${v.repository}: ${v.name} -> ${v.assigned}`);
  }
  if (op.state === "pending" || op.state === "running")
    lines.push(`Still working; check again with: baton op get ${op.id}`);
  else if (op.state === "succeeded")
    lines.push(`To write its environment here, run: baton env activate ${op.repository}`);
  else lines.push(`To try again, run: baton env activate ${op.repository}`);
  return lines;
}

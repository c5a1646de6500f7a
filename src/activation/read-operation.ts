// `baton op get <id>`: reads one operation from the service. src/cli prints it (exit 6 when it failed).
import type { Log } from "../log-level.js";
import { createOpsClient, requireOpsSettings } from "../transport/index.js";
import type { Operation } from "../transport/wire.js";

export async function readOperation(input: {
  id: string;
  env: NodeJS.ProcessEnv;
  log?: Log;
}): Promise<Operation> {
  const client = createOpsClient(requireOpsSettings(input.env), input.log ? { log: input.log } : {});
  try {
    return await client.getOperation(input.id);
  } finally {
    await client.close();
  }
}

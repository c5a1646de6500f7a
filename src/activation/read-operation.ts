// `baton op get <id>`: reads one operation from the service. src/cli prints it (exit 6 when it failed).
import type { Log } from "../log-level.js";
import { createOpsClient, requireOpsSettings } from "../transport/index.js";
import type { Operation, ProxyRefusalWire } from "../transport/wire.js";

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

/**
 * The egress proxy's latest refusals for this sandbox, shown under an operation: they tell a missing grant from a
 * network problem. Null when they cannot be read (an older service, the service unreachable).
 */
export async function readProxyRefusals(input: {
  env: NodeJS.ProcessEnv;
  log?: Log;
}): Promise<ProxyRefusalWire[] | null> {
  const client = createOpsClient(requireOpsSettings(input.env), input.log ? { log: input.log } : {});
  try {
    return await client.getProxyRefusals();
  } catch {
    return null;
  } finally {
    await client.close();
  }
}

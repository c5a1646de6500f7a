// What one POST costs against the MCP budget (reference section 8 "MCP rate": calls, not requests). A JSON-RPC
// batch is a call per message, counted before any of them runs; batches exist only in the protocol versions that
// had them (2024-11-05 and 2025-03-26: 2025-06-18 removed them, and the modern era never had them), so a batch
// sent in any other version is refused whole. Judged from the bounded bytes the gates already read; a body that
// is not a JSON array is one call, and the SDK answers it (a parse error included).
import { LEGACY_BATCH_VERSIONS, MCP_LIMITS } from "./wire.js";

export type BodyCost = { kind: "calls"; calls: number } | { kind: "refused"; reason: string };

/** The version a legacy request speaks when it names none (the 2025-06-18 transport's rule for old clients). */
const UNNAMED_VERSION = "2025-03-26";

export function costOfBody(body: Uint8Array, protocolVersionHeader: string | undefined): BodyCost {
  if (!startsAnArray(body)) return { kind: "calls", calls: 1 };
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return { kind: "calls", calls: 1 };
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return { kind: "calls", calls: 1 };
  const version = protocolVersionHeader?.trim() || UNNAMED_VERSION;
  if (!(LEGACY_BATCH_VERSIONS as readonly string[]).includes(version))
    return {
      kind: "refused",
      reason: `Invalid Request: MCP protocol version ${version} has no JSON-RPC batches (only ${LEGACY_BATCH_VERSIONS.join(" and ")} do); send one message per request`,
    };
  if (parsed.length > MCP_LIMITS.batchMessages)
    return {
      kind: "refused",
      reason: `Invalid Request: a batch holds at most ${MCP_LIMITS.batchMessages} messages, not ${parsed.length}`,
    };
  return { kind: "calls", calls: parsed.length };
}

/** Whether the first byte that is not JSON whitespace opens an array. */
function startsAnArray(body: Uint8Array): boolean {
  for (const byte of body) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d) continue;
    return byte === 0x5b;
  }
  return false;
}

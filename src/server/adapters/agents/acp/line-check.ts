// The agent's stdout may carry ACP and nothing else. The SDK answers a line that is not JSON with a parse error and
// reads on, so an agent printing its log to stdout would look merely slow; this check passes each line through
// unchanged while it is a JSON-RPC 2.0 object, and on the first that is not, reports it and ends the stream.

export interface LineViolation {
  /** What was wrong, for the turn's reason. */
  problem: string;
  /** The start of the offending line (raw: the caller sanitises it). */
  excerpt: string;
}

const NEWLINE = 0x0a;
const EXCERPT = 120;

/** Why `line` is not a JSON-RPC message, or null when it is one (or blank). */
export function classifyLine(line: string): string | null {
  const trimmed = line.trim();
  if (trimmed === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return "a line that is not JSON";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return "a JSON line that is not a JSON-RPC object";
  if ((value as { jsonrpc?: unknown }).jsonrpc !== "2.0") return "a JSON object that is not JSON-RPC 2.0";
  return null;
}

/** Bytes in, the same bytes out, line by line, while every line is JSON-RPC; at most `maxLineBytes` a line. */
export function checkJsonRpcLines(
  maxLineBytes: number,
  onViolation: (violation: LineViolation) => void,
): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let parts: Uint8Array[] = [];
  let pending = 0;
  let broken = false;
  const fail = (controller: TransformStreamDefaultController<Uint8Array>, violation: LineViolation) => {
    broken = true;
    parts = [];
    onViolation(violation);
    controller.terminate();
  };
  const emit = (controller: TransformStreamDefaultController<Uint8Array>, line: Uint8Array) => {
    const text = decoder.decode(line);
    const problem = classifyLine(text);
    if (problem) return fail(controller, { problem, excerpt: text.trim().slice(0, EXCERPT) });
    controller.enqueue(line);
  };
  return new TransformStream({
    transform(chunk, controller) {
      let start = 0;
      for (let at = chunk.indexOf(NEWLINE); at !== -1 && !broken; at = chunk.indexOf(NEWLINE, start)) {
        parts.push(chunk.subarray(start, at + 1));
        start = at + 1;
        emit(controller, joinParts(parts));
        parts = [];
        pending = 0;
      }
      if (broken || start === chunk.length) return;
      parts.push(chunk.subarray(start));
      pending += chunk.length - start;
      if (pending > maxLineBytes)
        fail(controller, {
          problem: `a line longer than ${maxLineBytes} bytes`,
          excerpt: decoder.decode(parts[0]!.subarray(0, EXCERPT)),
        });
    },
    flush(controller) {
      if (!broken && parts.length > 0) emit(controller, joinParts(parts));
    },
  });
}

function joinParts(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

// What a tool call answers: the HTTP route's JSON as text and as structured content, or, for a refusal, a tool
// execution error (`isError: true`) whose text says what to fix (DESIGN "Domain errors are surface-neutral").
import { DomainError, type DomainErrorCode } from "../../domain/errors.js";

export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export function answerTool(body: unknown): ToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(body) }],
    structuredContent: body as Record<string, unknown>,
  };
}

/** The API's reasons name its headers and routes; a tool's caller knows the arguments and tools instead. */
const MCP_REASONS: Partial<Record<DomainErrorCode, (reason: string) => string>> = {
  invalid_idempotency_key: (reason) => reason.replace("Idempotency-Key", "idempotency_key"),
};

/** A refusal as the tool's answer: `<code>: <reason>`, then the fields the code carries (taskId, limit...). */
export function refuseTool(error: DomainError): ToolResult {
  const reason = MCP_REASONS[error.code]?.(error.reason) ?? error.reason;
  const details = Object.keys(error.details).length > 0 ? ` ${JSON.stringify(error.details)}` : "";
  return { content: [{ type: "text", text: `${error.code}: ${reason}${details}` }], isError: true };
}

/** Runs a tool body: its value is the answer, a DomainError the refusal; anything else is the service's fault. */
export async function runTool(work: () => unknown): Promise<ToolResult> {
  try {
    return answerTool(await work());
  } catch (error) {
    if (error instanceof DomainError) return refuseTool(error);
    throw error;
  }
}

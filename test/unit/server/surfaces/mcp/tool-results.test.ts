// How a tool answers (DESIGN "Domain errors are surface-neutral"; reference: "A refused call ... returns a tool
// execution error (isError: true) saying what to fix"): a value is the route's JSON as text and structured
// content; a DomainError is `isError: true` with `<code>: <reason>` and the fields the code carries; any other
// error is the service's fault and is not dressed up as a refusal.
import { describe, expect, it } from "vitest";
import { DOMAIN_ERROR_CODES, domainError } from "../../../../../src/server/domain/errors.js";
import { answerTool, refuseTool, runTool } from "../../../../../src/server/surfaces/mcp/tool-results.js";

describe("tool results", () => {
  it("a value is the same JSON as text and as structured content", () => {
    const body = { task: { id: "task_1" }, messageId: "m" };
    const result = answerTool(body);
    expect(JSON.parse(result.content[0]!.text)).toEqual(body);
    expect(result.structuredContent).toEqual(body);
    expect(result.isError).toBeUndefined();
  });

  it.each(DOMAIN_ERROR_CODES)("the domain's %s is a tool execution error naming the code", (code) => {
    const result = refuseTool(domainError(code, "say what to fix"));
    expect(result).toEqual({ content: [{ type: "text", text: `${code}: say what to fix` }], isError: true });
  });

  it("the fields a code carries follow the reason", () => {
    const result = refuseTool(
      domainError("too_many_running", "wait for one to end", { limit: 5, running: 5 }),
    );
    expect(result.content[0]!.text).toBe('too_many_running: wait for one to end {"limit":5,"running":5}');
  });

  it("the API's header name becomes the tool's argument name", () => {
    const result = refuseTool(domainError("invalid_idempotency_key", "Idempotency-Key must be 1 to 128"));
    expect(result.content[0]!.text).toBe("invalid_idempotency_key: idempotency_key must be 1 to 128");
  });

  it("runTool turns a DomainError into a refusal and lets any other error through", async () => {
    expect((await runTool(() => Promise.reject(domainError("not_found", "no such task")))).isError).toBe(
      true,
    );
    await expect(runTool(() => Promise.reject(new Error("store broke")))).rejects.toThrow("store broke");
  });
});

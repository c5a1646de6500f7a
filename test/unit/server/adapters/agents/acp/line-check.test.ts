// The agent's stdout carries ACP only: each line a JSON-RPC 2.0 object, passed through unchanged; the first line
// that is not one is reported and ends the stream.
import { describe, expect, it } from "vitest";
import {
  checkJsonRpcLines,
  classifyLine,
  type LineViolation,
} from "../../../../../../src/server/adapters/agents/acp/line-check.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

async function pass(
  chunks: string[],
  maxLineBytes = 1024,
): Promise<{ out: string; violations: LineViolation[] }> {
  const violations: LineViolation[] = [];
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  let out = "";
  for await (const bytes of source.pipeThrough(checkJsonRpcLines(maxLineBytes, (v) => violations.push(v))))
    out += decoder.decode(bytes);
  return { out, violations };
}

const REQUEST = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}';
const NOTE = '{"jsonrpc":"2.0","method":"session/update","params":{}}';

describe("classifyLine", () => {
  const cases: [string, string | null][] = [
    [REQUEST, null],
    [`  ${NOTE}  `, null],
    ["", null],
    ["   ", null],
    ["Starting up...", "a line that is not JSON"],
    ["[1,2]", "a JSON line that is not a JSON-RPC object"],
    ["42", "a JSON line that is not a JSON-RPC object"],
    ["null", "a JSON line that is not a JSON-RPC object"],
    ['{"id":1,"result":{}}', "a JSON object that is not JSON-RPC 2.0"],
    ['{"jsonrpc":"1.0","id":1}', "a JSON object that is not JSON-RPC 2.0"],
  ];
  for (const [line, expected] of cases)
    it(`${JSON.stringify(line)} → ${expected ?? "a message"}`, () =>
      expect(classifyLine(line)).toBe(expected));
});

describe("checkJsonRpcLines", () => {
  it("passes JSON-RPC lines through byte for byte, whatever the chunking", async () => {
    const text = `${REQUEST}\n${NOTE}\n`;
    for (const chunks of [
      [text],
      text.split(""),
      [REQUEST.slice(0, 10), `${REQUEST.slice(10)}\n${NOTE}`, "\n"],
    ]) {
      const { out, violations } = await pass(chunks);
      expect(out).toBe(text);
      expect(violations).toEqual([]);
    }
  });

  it("keeps a last line without a newline", async () => {
    expect((await pass([`${REQUEST}\n${NOTE}`])).out).toBe(`${REQUEST}\n${NOTE}`);
  });

  it("reports the first line that is not JSON-RPC, with its start, and passes nothing after it", async () => {
    const { out, violations } = await pass([`${REQUEST}\nnpm WARN something ${"x".repeat(300)}\n${NOTE}\n`]);
    expect(out).toBe(`${REQUEST}\n`);
    expect(violations).toHaveLength(1);
    expect(violations[0]!.problem).toBe("a line that is not JSON");
    expect(violations[0]!.excerpt).toMatch(/^npm WARN something x+$/);
    expect(violations[0]!.excerpt.length).toBe(120);
  });

  it("reports a line longer than the bound before it ends", async () => {
    const { violations } = await pass([`{"jsonrpc":"2.0","x":"${"y".repeat(200)}`, "y".repeat(200)], 256);
    expect(violations.map((v) => v.problem)).toEqual(["a line longer than 256 bytes"]);
  });
});

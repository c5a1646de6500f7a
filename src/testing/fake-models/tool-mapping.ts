// Maps a script's intent onto a tool the agent offered, by the names and argument shapes real agents use. Read
// from their requests' `tools`: Claude Code 0.16.2's Bash/Read/Write/Edit and `mcp__<server>__<tool>`; Codex
// 0.16.0's exec_command (`cmd`), a freeform "custom" apply_patch, no read tool (so `cat`), and an MCP server's
// tools inside a `namespace` tool (`mcp__<server>`). Not yet run here, by their tool names: Gemini CLI's
// run_shell_command/read_file/write_file/replace, opencode's bash/read/write/edit, older Codex's shell/shell_command.
import type { ToolIntent } from "./script.js";

/** A tool as the request offered it: its name, whether it takes JSON arguments or free text, its JSON schema. */
export interface OfferedTool {
  name: string;
  /** The group it was offered in (Codex offers an MCP server's tools in a `namespace` tool, `mcp__<server>`). */
  namespace?: string;
  type: "function" | "custom";
  schema?: { properties?: Record<string, { type?: unknown }>; required?: string[] };
}

export type MappedCall =
  | { name: string; namespace?: string; type: "function"; args: Record<string, unknown> }
  | { name: string; type: "custom"; input: string };

export class NoToolForIntent extends Error {
  override name = "NoToolForIntent";
}

const SHELL = ["Bash", "shell_command", "shell", "exec_command", "run_shell_command", "bash"];
const READ = ["Read", "read_file", "read"];
const WRITE = ["Write", "write_file", "write"];
const EDIT = ["Edit", "replace", "edit"];
const PATH_KEYS = ["file_path", "absolute_path", "filePath", "path"];

const find = (tools: readonly OfferedTool[], names: readonly string[]) => {
  for (const name of names) {
    const tool = tools.find((offered) => offered.name === name);
    if (tool) return tool;
  }
  return undefined;
};
const keyOf = (tool: OfferedTool, keys: readonly string[], fallback: string) =>
  keys.find((key) => tool.schema?.properties?.[key] !== undefined) ?? fallback;

function shell(tools: readonly OfferedTool[], command: string): MappedCall {
  const tool = find(tools, SHELL);
  if (!tool) throw new NoToolForIntent(`no shell tool among ${names(tools)}`);
  const key = keyOf(tool, ["command", "cmd"], "command");
  const asArray = tool.schema?.properties?.[key]?.type === "array";
  const args: Record<string, unknown> = { [key]: asArray ? ["bash", "-lc", command] : command };
  if (tool.schema?.required?.includes("description")) args.description = `Run ${command}`;
  return { name: tool.name, type: "function", args };
}

/** Codex's apply_patch: free text for a custom tool, `{ input }` for a function one. */
function patch(tool: OfferedTool, body: string): MappedCall {
  const text = `*** Begin Patch\n${body}*** End Patch\n`;
  return tool.type === "custom"
    ? { name: tool.name, type: "custom", input: text }
    : { name: tool.name, type: "function", args: { input: text } };
}
const plusLines = (text: string) =>
  text
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => `+${line}\n`)
    .join("");

export function mapIntent(intent: ToolIntent, tools: readonly OfferedTool[]): MappedCall {
  switch (intent.kind) {
    case "shell":
      return shell(tools, intent.command);
    case "read": {
      const tool = find(tools, READ);
      if (!tool) return shell(tools, `cat ${quote(intent.path)}`);
      return { name: tool.name, type: "function", args: { [keyOf(tool, PATH_KEYS, "path")]: intent.path } };
    }
    case "write": {
      const tool = find(tools, WRITE);
      if (tool)
        return {
          name: tool.name,
          type: "function",
          args: { [keyOf(tool, PATH_KEYS, "path")]: intent.path, content: intent.content },
        };
      const patcher = find(tools, ["apply_patch"]);
      if (patcher)
        return patch(
          patcher,
          `*** Delete File: ${intent.path}\n*** Add File: ${intent.path}\n${plusLines(intent.content)}`,
        );
      return shell(tools, `printf %s ${quote(intent.content)} > ${quote(intent.path)}`);
    }
    case "edit": {
      const tool = find(tools, EDIT);
      if (tool) {
        const oldKey = keyOf(tool, ["old_string", "oldString"], "old_string");
        const newKey = keyOf(tool, ["new_string", "newString"], "new_string");
        return {
          name: tool.name,
          type: "function",
          args: {
            [keyOf(tool, PATH_KEYS, "path")]: intent.path,
            [oldKey]: intent.oldText,
            [newKey]: intent.newText,
          },
        };
      }
      const patcher = find(tools, ["apply_patch"]);
      if (!patcher) throw new NoToolForIntent(`no edit tool among ${names(tools)}`);
      const minus = intent.oldText
        .replace(/\n$/, "")
        .split("\n")
        .map((line) => `-${line}\n`)
        .join("");
      return patch(patcher, `*** Update File: ${intent.path}\n@@\n${minus}${plusLines(intent.newText)}`);
    }
    case "mcp": {
      const tool = tools.find(
        (offered) =>
          (offered.name === intent.tool && offered.namespace !== undefined) ||
          offered.name.endsWith(`__${intent.tool}`) ||
          offered.name.endsWith(`_${intent.tool}`),
      );
      if (!tool) throw new NoToolForIntent(`no MCP tool ${intent.tool} among ${names(tools)}`);
      return {
        name: tool.name,
        ...(tool.namespace ? { namespace: tool.namespace } : {}),
        type: "function",
        args: intent.args,
      };
    }
  }
}

const names = (tools: readonly OfferedTool[]) => tools.map((tool) => tool.name).join(", ") || "(none)";
const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

// What a fake model says, as a script: an ordered list of steps, each a tool call stated as an intent ("run this
// shell command", "edit this file", "call the MCP tool open_pull_request") or a final text answer. The fake maps an
// intent onto the tools the agent offered in the request (tool-mapping.ts), so one script drives any agent.

export type ToolIntent =
  | { kind: "read"; path: string }
  | { kind: "write"; path: string; content: string }
  /** Whole lines: `oldText` as it is in the file (agents that edit by patch need lines). */
  | { kind: "edit"; path: string; oldText: string; newText: string }
  | { kind: "shell"; command: string }
  /** One of the agent's MCP tools, by its name on the MCP server (`open_pull_request`). */
  | { kind: "mcp"; tool: string; args: Record<string, unknown> };

export type ScriptStep = { call: ToolIntent } | { text: string };

/** Plain text for calls that carry no tools (titles, summaries, quota checks). */
export const SIDE_CALL_TEXT = "Baton test";

/** What the fake answers when the script has no step left. */
export const SCRIPT_ENDED_TEXT = "The script has ended.";

/** Hands out the script's steps in order, one per request that offered tools. */
export class ScriptCursor {
  private next = 0;
  constructor(private readonly steps: readonly ScriptStep[]) {}

  /** The next step and its index, or the "ended" text once the steps ran out. */
  take(): { index: number | null; step: ScriptStep } {
    if (this.next >= this.steps.length) return { index: null, step: { text: SCRIPT_ENDED_TEXT } };
    const index = this.next++;
    return { index, step: this.steps[index]! };
  }

  get served(): number {
    return this.next;
  }
}

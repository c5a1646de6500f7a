// A turn's activity records as the task page lists them (pure): one item per tool call (its later updates folded
// in, so a call shows its latest status once), the turn's plan as last updated where it first appeared, the
// agent's messages, permission answers, Baton's own tools and the marker of dropped records. The records come from
// the agent (sanitised, bounded), so every field is read as unknown and only strings and numbers are shown.
import type { ActivityRecord } from "../../../adapters/agents/port.js";

export interface ToolItem {
  type: "tool";
  id: string;
  kind: string;
  title: string;
  status: string;
  paths: string[];
}
export type ActivityItem =
  | ToolItem
  | { type: "plan"; entries: { content: string; status: string; priority: string }[] }
  | { type: "message"; who: "agent" | "thought" | "user"; text: string }
  | { type: "permission"; title: string; outcome: string }
  | { type: "baton_tool"; tool: string; detail: string }
  | { type: "dropped"; records: number }
  | { type: "other"; kind: string; detail: string };

const MESSAGE_KINDS: Record<string, "agent" | "thought" | "user"> = {
  agent_message_chunk: "agent",
  agent_thought_chunk: "thought",
  user_message_chunk: "user",
};
const MAX_PATHS = 10;

const text = (value: unknown): string =>
  typeof value === "string" ? value : typeof value === "number" ? String(value) : "";
const object = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export function toActivityItems(records: readonly ActivityRecord[]): ActivityItem[] {
  const items: ActivityItem[] = [];
  const tools = new Map<string, ToolItem>();
  let plan: Extract<ActivityItem, { type: "plan" }> | undefined;
  for (const record of records) {
    const data = object(record.data);
    const who = MESSAGE_KINDS[record.kind];
    if (who) items.push({ type: "message", who, text: text(data.text) });
    else if (record.kind === "tool_call" || record.kind === "tool_call_update") {
      const id = text(data.toolCallId);
      const known = id === "" ? undefined : tools.get(id);
      const tool = known ?? { type: "tool" as const, id, kind: "", title: "", status: "", paths: [] };
      foldTool(tool, data);
      if (!known) {
        items.push(tool);
        if (id !== "") tools.set(id, tool);
      }
    } else if (record.kind === "plan") {
      const entries = list(data.entries).map((entry) => {
        const e = object(entry);
        return { content: text(e.content), status: text(e.status), priority: text(e.priority) };
      });
      if (plan) plan.entries = entries;
      else {
        plan = { type: "plan", entries };
        items.push(plan);
      }
    } else if (record.kind === "permission") {
      const outcome = object(data.outcome);
      const chosen = text(outcome.optionId);
      const option = list(data.options)
        .map(object)
        .find((o) => text(o.optionId) === chosen);
      items.push({
        type: "permission",
        title: text(object(data.toolCall).title),
        outcome: text(outcome.outcome) === "selected" ? text(option?.name) || chosen : text(outcome.outcome),
      });
    } else if (record.kind === "baton_tool")
      items.push({
        type: "baton_tool",
        tool: text(data.tool),
        detail: text(data.title) || text(data.question),
      });
    else if (record.kind === "dropped") items.push({ type: "dropped", records: Number(data.records) || 0 });
    else items.push({ type: "other", kind: record.kind, detail: summary(data) });
  }
  return items;
}

function foldTool(tool: ToolItem, data: Record<string, unknown>): void {
  tool.kind = text(data.kind) || tool.kind;
  tool.title = text(data.title) || tool.title;
  tool.status = text(data.status) || tool.status;
  const paths = [
    ...list(data.locations).map((l) => text(object(l).path)),
    ...list(data.content).map((c) => text(object(c).path)),
  ].filter((p) => p !== "");
  for (const path of paths)
    if (!tool.paths.includes(path) && tool.paths.length < MAX_PATHS) tool.paths.push(path);
}

/** A short line for a record of a kind the page does not know: its top-level strings. */
function summary(data: Record<string, unknown>): string {
  return Object.entries(data)
    .filter(([, value]) => typeof value === "string" || typeof value === "number")
    .map(([key, value]) => `${key}: ${text(value)}`)
    .join(", ")
    .slice(0, 200);
}

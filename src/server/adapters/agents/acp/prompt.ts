// What a turn sends as `session/prompt`. A fresh session (the task's first, or a new one after the agent's process
// was lost and it could not load the old one) gets the preamble and the conversation so far; a session that lives
// on, or was loaded, already holds the earlier turns and gets only the user's messages it has not seen.
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { AgentTask, ConversationEntry } from "../port.js";
import { BATON_PREAMBLE } from "./preamble.js";

export interface PromptInput {
  task: AgentTask;
  conversation: readonly ConversationEntry[];
  /** The session is new: it holds nothing of this task. */
  fresh: boolean;
  /** The last entry the session was sent (unknown for a fresh session or a lost record). */
  seenThrough: string | null;
}

export interface Prompt {
  blocks: ContentBlock[];
  /** The conversation's last entry: what the session has seen once this prompt is sent. */
  seenThrough: string | null;
}

const text = (value: string): ContentBlock => ({ type: "text", text: value });

export function buildPrompt(input: PromptInput): Prompt {
  const { conversation } = input;
  const seenThrough = conversation.at(-1)?.id ?? null;
  if (input.fresh)
    return { blocks: [text(BATON_PREAMBLE), text(describeTask(input.task, conversation))], seenThrough };
  return {
    blocks: unseenMessages(conversation, input.seenThrough).map((entry) => text(entry.body)),
    seenThrough,
  };
}

/** The user's messages after `seenThrough`; when that is unknown or nothing follows it, the last run of them. */
export function unseenMessages(
  conversation: readonly ConversationEntry[],
  seenThrough: string | null,
): ConversationEntry[] {
  const at = seenThrough === null ? -1 : conversation.findIndex((entry) => entry.id === seenThrough);
  const after = at === -1 ? [] : conversation.slice(at + 1).filter((entry) => entry.role === "user");
  return after.length > 0 ? after : trailingUserMessages(conversation);
}

function trailingUserMessages(conversation: readonly ConversationEntry[]): ConversationEntry[] {
  let start = conversation.length;
  while (start > 0 && conversation[start - 1]!.role === "user") start -= 1;
  return conversation.slice(start);
}

function describeTask(task: AgentTask, conversation: readonly ConversationEntry[]): string {
  const head = [
    `Task${task.title ? `: ${task.title}` : ""}`,
    ...(task.repo ? [`Repository: ${task.repo}`] : []),
  ].join("\n");
  const fresh = trailingUserMessages(conversation);
  const earlier = conversation.slice(0, conversation.length - fresh.length);
  const messages = fresh.map((entry) => entry.body).join("\n\n");
  if (earlier.length === 0) return `${head}\n\n${messages}`;
  const transcript = earlier.map((entry) => `[${speaker(entry)}]\n${entry.body}`).join("\n\n");
  return `${head}\n\nThe conversation so far (earlier turns of this task; you do not remember them):\n\n${transcript}\n\nThe new message${fresh.length === 1 ? "" : "s"}:\n\n${messages}`;
}

function speaker(entry: ConversationEntry): string {
  if (entry.role === "user") return "user";
  if (entry.role === "agent") return entry.kind === "clarify" ? "you asked" : "you replied";
  return entry.kind === "error" ? "Baton (error)" : "Baton";
}

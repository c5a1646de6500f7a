// What one prompt turn gathers from the agent's `session/update`s: the reply (the text of its message chunks, in
// order, a blank line where a tool call or plan came between two stretches of it) and the activity (every update,
// thoughts only when asked for). The reply is never part of the activity's decisions, nor the activity of the reply.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { type ActivityLimits, ActivityLog } from "./activity-log.js";

/** Kinds that end a stretch of the agent's message: text after one of them starts a new paragraph. */
const BREAKS = new Set(["tool_call", "tool_call_update", "plan", "agent_thought_chunk"]);

export interface CollectorOptions {
  limits: ActivityLimits;
  /** Keep the agent's thought chunks in the activity (off by default: they can be long and are not its work). */
  keepThoughts: boolean;
  /** Characters of reply text kept; the rest is counted, not kept. */
  maxReplyChars: number;
  now: () => Date;
}

export class TurnCollector {
  readonly activity: ActivityLog;
  private text = "";
  private cut = 0;
  private lastKind: string | undefined;
  private lastMessageId: string | null = null;

  constructor(private readonly options: CollectorOptions) {
    this.activity = new ActivityLog(options.limits, options.now);
  }

  onUpdate(update: SessionUpdate): void {
    const kind = update.sessionUpdate;
    if (kind !== "agent_thought_chunk" || this.options.keepThoughts) this.activity.addUpdate(update);
    if (kind === "agent_message_chunk" && update.content.type === "text") {
      const messageId = update.messageId ?? null;
      const newMessage =
        (this.lastKind !== undefined && BREAKS.has(this.lastKind)) ||
        (messageId !== null && this.lastMessageId !== null && messageId !== this.lastMessageId);
      this.append(newMessage && this.text.trim() !== "" ? `\n\n${update.content.text}` : update.content.text);
      this.lastMessageId = messageId;
    }
    this.lastKind = kind;
  }

  /** The reply's text so far, and how many characters past the bound were not kept. */
  reply(): { text: string; cut: number } {
    return { text: this.text, cut: this.cut };
  }

  private append(more: string): void {
    const room = this.options.maxReplyChars - this.text.length;
    if (more.length <= room) this.text += more;
    else {
      this.text += more.slice(0, Math.max(0, room));
      this.cut += more.length - Math.max(0, room);
    }
  }
}

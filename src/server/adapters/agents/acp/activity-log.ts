// A turn's activity as it arrives: one record per session update or permission request, the text chunks of one
// message joined into one record (agents stream a message a few characters at a time), every string cut to a
// bound and the whole log kept under a byte budget by dropping the oldest records behind one marker. Raw: the
// runner sanitises the records once the turn ends, so a secret split across chunks is still found.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { ActivityRecord } from "../port.js";

export interface ActivityLimits {
  /** The whole turn's records, as JSON characters (a few MiB). */
  maxChars: number;
  /** One string in a record (a file's content in a tool call, say). */
  maxStringChars: number;
}

export const DEFAULT_ACTIVITY_LIMITS: ActivityLimits = {
  maxChars: 4 * 1024 * 1024,
  maxStringChars: 64 * 1024,
};

const CHUNKS = new Set(["user_message_chunk", "agent_message_chunk", "agent_thought_chunk"]);
/** A record's JSON beyond the per-record share of the budget keeps only its top-level scalars. */
const RECORD_SHARE = 8;
const SUMMARY_STRING = 200;
/** Below this many characters a cut string carries no note. */
const MIN_NOTED = 40;

interface Entry {
  record: { at: string; kind: string; data: Record<string, unknown> };
  size: number;
  /** A text chunk record still taking chunks of the same message. */
  open?: { messageId: string | null };
}

export class ActivityLog {
  private entries: Entry[] = [];
  private size = 0;
  private dropped = 0;

  constructor(
    private readonly limits: ActivityLimits,
    private readonly now: () => Date,
  ) {}

  /** Records a session update; consecutive text chunks of one message extend one record. */
  addUpdate(update: SessionUpdate): void {
    const { sessionUpdate: kind, ...rest } = update as SessionUpdate & Record<string, unknown>;
    const content = (rest as { content?: { type?: string; text?: unknown } }).content;
    if (CHUNKS.has(kind) && content?.type === "text" && typeof content.text === "string") {
      const messageId = (rest as { messageId?: string | null }).messageId ?? null;
      const last = this.entries.at(-1);
      if (last?.open && last.record.kind === kind && last.open.messageId === messageId) {
        const before = last.record.data.text as string;
        const text = bound(before + content.text, this.limits.maxStringChars);
        last.record.data.text = text;
        this.grow(last, text.length - before.length);
        return;
      }
      this.push(
        kind,
        { text: bound(content.text, this.limits.maxStringChars), ...(messageId ? { messageId } : {}) },
        {
          messageId,
        },
      );
      return;
    }
    this.push(kind, rest);
  }

  /** Records anything else the turn did (a permission request and its answer, a session loaded). */
  add(kind: string, data: Record<string, unknown>): void {
    this.push(kind, data);
  }

  /** The records so far, oldest first, behind a `dropped` marker when any were dropped. */
  records(): ActivityRecord[] {
    const records: ActivityRecord[] = this.entries.map((entry) => entry.record);
    if (this.dropped === 0) return records;
    return [
      {
        at: records[0]?.at ?? this.now().toISOString(),
        kind: "dropped",
        data: {
          records: this.dropped,
          reason: `the turn's activity passed ${this.limits.maxChars} characters: its oldest records were dropped`,
        },
      },
      ...records,
    ];
  }

  private push(kind: string, raw: Record<string, unknown>, open?: Entry["open"]): void {
    const at = this.now().toISOString();
    let data = boundStrings(raw, this.limits.maxStringChars) as Record<string, unknown>;
    // A record's JSON and the comma after it in the list.
    const sizeOf = () => JSON.stringify({ at, kind, data }).length + 1;
    let size = sizeOf();
    if (size > this.limits.maxChars / RECORD_SHARE) {
      data = summarise(data, size);
      size = sizeOf();
    }
    const last = this.entries.at(-1);
    if (last) delete last.open;
    this.entries.push({ record: { at, kind, data }, size, ...(open ? { open } : {}) });
    this.size += size;
    this.evict();
  }

  private grow(entry: Entry, by: number): void {
    entry.size += by;
    this.size += by;
    this.evict();
  }

  private evict(): void {
    while (this.size > this.limits.maxChars && this.entries.length > 1) {
      this.size -= this.entries.shift()!.size;
      this.dropped += 1;
    }
  }
}

/** `text` cut to `max` characters, saying how many were cut (a bound too small for the note just cuts). */
export function bound(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max < MIN_NOTED) return text.slice(0, max);
  // The note's length depends on the count it states: settle on a length that fits both.
  for (let keep = max; ; ) {
    const note = `… [${text.length - keep} more characters]`;
    const next = max - note.length;
    if (next === keep) return text.slice(0, keep) + note;
    keep = next;
  }
}

function boundStrings(value: unknown, max: number): unknown {
  if (typeof value === "string") return bound(value, max);
  if (Array.isArray(value)) return value.map((item) => boundStrings(item, max));
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, boundStrings(item, max)]));
  return value;
}

/** A record too big to keep whole: its top-level scalars (a tool call's id, title, status), short. */
function summarise(data: Record<string, unknown>, size: number): Record<string, unknown> {
  const kept = Object.entries(data).filter(([, value]) => value === null || typeof value !== "object");
  return {
    ...Object.fromEntries(
      kept.map(([key, value]) => [key, typeof value === "string" ? bound(value, SUMMARY_STRING) : value]),
    ),
    truncated: `${size} characters of JSON; only its top-level fields are kept`,
  };
}

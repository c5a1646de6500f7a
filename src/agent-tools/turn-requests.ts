// The turn-requests file, both ways: a tool call rendered as one JSON line (the server appends it), and a
// turn's lines summed up for the service (the ACP adapter reads the file when the turn ends).
import {
  type AskUserInput,
  type OpenPullRequestInput,
  type ReportedCheck,
  type TurnRequest,
  TurnRequestSchema,
} from "./schemas.js";

export type AgentToolCall =
  | { tool: "ask_user"; input: AskUserInput }
  | { tool: "open_pull_request"; input: OpenPullRequestInput };

/** One call as the file's line (newline included); `at` is passed in, so this stays a pure function. */
export function renderTurnRequest(call: AgentToolCall, at: Date): string {
  const request: TurnRequest =
    call.tool === "ask_user"
      ? { tool: "ask_user", at: at.toISOString(), question: call.input.question }
      : {
          tool: "open_pull_request",
          at: at.toISOString(),
          title: call.input.title,
          ...(call.input.body === undefined ? {} : { body: call.input.body }),
          draft: call.input.draft ?? false,
          ...(call.input.checks === undefined ? {} : { checks: call.input.checks }),
        };
  return `${JSON.stringify(TurnRequestSchema.parse(request))}\n`;
}

/** What a turn asked of the service through its tools. */
export interface TurnRequests {
  /** The agent asked the user this (`ask_user`): the turn's reply is a `clarify`. */
  clarify?: { question: string };
  /** The agent asked for the task's pull request (`open_pull_request`). */
  pullRequest?: { title: string; body?: string; draft: boolean; checks?: ReportedCheck[] };
  /** Lines that were not a valid request (not JSON, an unknown tool, a value out of its limits): ignored. */
  skipped: number;
}

/**
 * Sums up a turn's lines: the last call of each tool wins (an agent may change its mind); blank lines are
 * ignored; any other line that is not a valid request is skipped and counted. Never throws.
 */
export function readTurnRequests(text: string): TurnRequests {
  const summary: TurnRequests = { skipped: 0 };
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const request = parseLine(line);
    if (request === undefined) summary.skipped++;
    else if (request.tool === "ask_user") summary.clarify = { question: request.question };
    else {
      summary.pullRequest = {
        title: request.title,
        ...(request.body === undefined ? {} : { body: request.body }),
        draft: request.draft,
        ...(request.checks === undefined ? {} : { checks: request.checks }),
      };
    }
  }
  return summary;
}

function parseLine(line: string): TurnRequest | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = TurnRequestSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

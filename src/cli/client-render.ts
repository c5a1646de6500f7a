// Human output of the client commands: short, stable lines (pure). `--json` prints the API's own shapes instead.
import { ENTRY_LABELS } from "../client/render-follow.js";
import type { Message, Task, Workspace } from "../client/schemas.js";

/** `* ws_acme  Acme  (member)` with `*` on the default; the ids padded so the names line up. */
export function renderWorkspaces(workspaces: readonly Workspace[], defaultId: string | null): string[] {
  if (workspaces.length === 0) return ["You belong to no workspace yet."];
  const width = Math.max(...workspaces.map((w) => w.id.length));
  const lines = workspaces.map(
    (w) => `${w.id === defaultId ? "*" : " "} ${w.id.padEnd(width)}  ${w.name} (${w.role})`,
  );
  const known = workspaces.some((w) => w.id === defaultId);
  const footer = known
    ? "* the default workspace; change it with: baton workspace <workspace-id>"
    : "No default workspace: set one with baton workspace <workspace-id>";
  return ["Workspaces:", ...lines, footer];
}

function statusOf(task: Task): string {
  if (task.queued) return `${task.status} (queued)`;
  if (task.status === "paused" && task.pausedOn) return `paused (${task.pausedOn})`;
  return task.status;
}

/** One line per task: id, status, last activity, repository and title, in columns. */
export function renderTaskTable(tasks: readonly Task[]): string[] {
  if (tasks.length === 0) return ["No tasks."];
  const rows = tasks.map((t) => [
    t.id,
    statusOf(t),
    t.lastActivityAt,
    t.repo ?? "-",
    t.title ?? "(untitled)",
  ]);
  const header = ["ID", "STATUS", "LAST ACTIVITY", "REPO", "TITLE"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

export function renderTask(task: Task): string[] {
  return [
    `Task ${task.id}: ${task.title ?? "(untitled)"}`,
    `Status: ${statusOf(task)}`,
    `Repository: ${task.repo ?? "not chosen yet"}`,
    ...(task.pullRequest
      ? [`Pull request: ${task.pullRequest.url}${task.pullRequest.merged ? " (merged)" : ""}`]
      : []),
    `Started: ${task.createdAt}; last activity: ${task.lastActivityAt}`,
  ];
}

/** Each entry as `[time] label:` and its body indented two spaces, so no body line passes for a new entry. */
export function renderConversation(messages: readonly Message[]): string[] {
  if (messages.length === 0) return ["(no messages yet)"];
  return messages.flatMap((m) => [
    "",
    `[${m.createdAt}] ${ENTRY_LABELS[`${m.role}/${m.kind}`] ?? `${m.role} ${m.kind}`}:`,
    ...m.body.split(/\r?\n/).map((line) => (line === "" ? "" : `  ${line}`)),
  ]);
}

// Markdown helpers for untrusted text: a table cell or inline code span can never break the layout.
import { formatDuration } from "../format/index.js";

/** One table cell: no line breaks, pipes escaped, bounded length. */
export function cell(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const short = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return short.replace(/\\/g, "\\\\").replace(/\|/g, "\\|");
}

/** Inline code whose fence is longer than any backtick run inside. */
export function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A duration in the one format every output uses, or a dash when there is none. */
export function duration(ms: number | null): string {
  return ms === null ? "–" : formatDuration(ms);
}

export function table(header: string[], rows: string[][]): string[] {
  return [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ];
}

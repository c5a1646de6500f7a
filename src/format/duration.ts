// The one way Baton shows a duration, in the CLI, the disclosure and progress lines: "23 ms", "4.2 s", "38 s",
// "2 min 05 s". Pure.

export function formatDuration(ms: number): string {
  const value = Math.max(0, ms);
  if (value < 1_000) return `${Math.round(value)} ms`;
  if (value < 10_000) return `${(Math.floor(value / 100) / 10).toFixed(1)} s`;
  const seconds = Math.floor(value / 1_000);
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, "0")} s`;
}

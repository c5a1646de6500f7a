// How pages write values a person reads: times in UTC to the minute (the page runs no script, so it cannot know
// the reader's time zone, and says which one it uses).
export function formatWhen(iso: string | null): string {
  if (iso === null) return "never";
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return iso;
  return `${when.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

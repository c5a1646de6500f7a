// "1 RUN step", "2 RUN steps", "0 variables": a count with its noun in the right number. Pure.

/** `plural` defaults to the singular plus "s"; pass it for irregular nouns ("entry", "entries"). */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

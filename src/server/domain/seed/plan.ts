// Decides what applying a seed item changes, from three versions of its fields: what the seed says now, what
// the seed set last time (its seed_items record) and what the store holds. Pure.
//   - an item the seed never set, or whose row is gone, is written whole;
//   - otherwise only the fields whose seed value changed since the seed last set them are written, so an
//     unchanged seed changes nothing, whatever the service changed since;
//   - an item that left the seed is removed only if its row still holds what the seed set (nothing changed it).

export type FieldValue = string | number | null;
export type Fields = Readonly<Record<string, FieldValue>>;

export function fieldsToWrite(desired: Fields, applied: Fields | undefined, rowExists: boolean): string[] {
  const names = Object.keys(desired);
  if (!applied || !rowExists) return names;
  return names.filter((name) => !(name in applied) || applied[name] !== desired[name]);
}

/** Whether the row still holds every field as the seed last set it. */
export function unchangedSinceSeeded(applied: Fields, current: Fields): boolean {
  return Object.keys(applied).every((name) => current[name] === applied[name]);
}

/** The items the seed set last time and does not list now. */
export function itemsGone(
  applied: ReadonlyMap<string, Fields>,
  listed: ReadonlySet<string>,
): [string, Fields][] {
  return [...applied].filter(([key]) => !listed.has(key));
}

// Sanitising parsed JSON: every string and every key through `clean` (the evidence sanitiser with the box's
// credentials). Done on values, not on the JSON text, so a redaction can never break the structure.
import type { ActivityRecord } from "../port.js";

export function sanitiseJson(value: unknown, clean: (text: string) => string): unknown {
  if (typeof value === "string") return clean(value);
  if (Array.isArray(value)) return value.map((item) => sanitiseJson(item, clean));
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [clean(key), sanitiseJson(item, clean)]),
    );
  return value;
}

export function sanitiseActivity(
  records: readonly ActivityRecord[],
  clean: (text: string) => string,
): ActivityRecord[] {
  return records.map((record) => ({
    at: record.at,
    kind: clean(record.kind),
    data: sanitiseJson(record.data, clean) as Record<string, unknown>,
  }));
}

// Turns a zod failure into one InputError naming the first bad field, in the form `a.b[2].c`.
import type { z } from "zod";
import { InputError } from "../errors.js";

export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out || "(top level)";
}

export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = formatIssuePath(issue.path);
  // Messages name the field and the rule; never the offending value (it may be a secret).
  throw new InputError(`${what}: ${path}: ${issue.message}`, { path, cause: result.error });
}

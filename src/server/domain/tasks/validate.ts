// The public API's input rules (reference sections 4, 7 and 8) as pure checks that throw the matching DomainError (the API answers each with its status).
import { domainError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { isTaskStatus, type TaskStatus } from "./statuses.js";
import { describeForbiddenCharacter, findForbiddenCharacter, type TextField } from "./text-rules.js";

/** Refuses a character the field may not hold (text-rules.ts) with the field's 400 code. */
function refuseForbiddenCharacters(value: string, field: TextField): void {
  const found = findForbiddenCharacter(value, field);
  if (found)
    throw domainError(
      field === "title" ? "invalid_title" : "invalid_prompt",
      describeForbiddenCharacter(field, found),
    );
}

/** "1 to 100,000 characters after trimming", no forbidden character; the trimmed text is what is kept. */
export function checkPrompt(value: unknown, field: "prompt" | "text"): string {
  if (typeof value !== "string")
    throw domainError("invalid_prompt", `${field} is required: a string of 1 to 100,000 characters`);
  const trimmed = value.trim();
  if (trimmed.length === 0)
    throw domainError("invalid_prompt", `${field} is empty; send 1 to 100,000 characters`);
  const length = countCharacters(trimmed);
  if (length > LIMITS.promptMaxChars)
    throw domainError(
      "invalid_prompt",
      `${field} is ${length} characters; the limit is 100,000 after trimming`,
    );
  refuseForbiddenCharacters(value, field);
  return trimmed;
}

/** A title given, or the prompt's first line cut to 80 characters. */
export function checkTitle(value: unknown, prompt: string): string {
  if (value === undefined || value === null)
    return [...(prompt.split("\n")[0] ?? "").trim()].slice(0, LIMITS.titleDefaultChars).join("");
  if (typeof value !== "string")
    throw domainError("invalid_title", "title must be a string of 1 to 200 characters, or null");
  if (value.trim().length === 0)
    throw domainError("invalid_title", "title is empty; omit it to use the prompt's first line");
  const length = countCharacters(value);
  if (length > LIMITS.titleMaxChars)
    throw domainError("invalid_title", `title is ${length} characters; the limit is 200`);
  refuseForbiddenCharacters(value, "title");
  return value;
}

/** Characters as people count them: code points, so an emoji is one character, not two UTF-16 units. */
export function countCharacters(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count -= 1;
        i += 1;
      }
    }
  }
  return count;
}

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/** `owner/name` or null; whether it is connected is the caller's check. */
export function checkRepoShape(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || !REPO.test(value))
    throw domainError(
      "invalid_repo",
      "repo must be owner/name of a repository connected to the workspace, or null",
    );
  return value;
}

/** "1 to 128 printable ASCII characters (0x21 to 0x7E), no spaces"; absent is allowed. */
export function checkIdempotencyKey(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (!/^[\x21-\x7e]{1,128}$/.test(value))
    throw domainError(
      "invalid_idempotency_key",
      "Idempotency-Key must be 1 to 128 printable ASCII characters (0x21 to 0x7E), no spaces",
    );
  return value;
}

export function checkStatusFilter(value: string | null | undefined): TaskStatus | null {
  if (value === null || value === undefined) return null;
  if (!isTaskStatus(value))
    throw domainError(
      "invalid_status",
      `no task status is named ${JSON.stringify(value.slice(0, 40))}; use one of the README's status table`,
    );
  return value;
}

export function checkLimit(
  value: string | null | undefined,
  range: { min: number; max: number; default: number },
): number {
  if (value === null || value === undefined) return range.default;
  const n = /^[0-9]{1,4}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < range.min || n > range.max)
    throw domainError("invalid_limit", `limit must be a whole number from ${range.min} to ${range.max}`);
  return n;
}

// The tokens page's forms, parsed once with zod: each refusal message says what to fix, in the page's words.
import { z } from "zod";
import { TOKEN_LIFETIME_DAYS, TOKEN_NAME_MAX_CHARS } from "../../../domain/limits.js";
import { CONFIRM_YES, TOKEN_FORM_FIELDS as F, NOTICES, type Notice } from "./wire.js";

/** Ids as `newId("pat")` makes them; seeded tokens migrated from before ids carry 24 hex digits. */
const TOKEN_ID = /^pat_[0-9a-f]{24,32}$/;
const NEW_TOKEN_ID = /^pat_[0-9a-f]{32}$/;
const LIFETIMES = TOKEN_LIFETIME_DAYS.map(String) as [string, ...string[]];

export const LIFETIME_MESSAGE = `Choose how long the token lasts: ${TOKEN_LIFETIME_DAYS.join(", ").replace(/, (\d+)$/, " or $1")} days.`;
export const NAME_MESSAGE = `Give the token a name of 1 to ${TOKEN_NAME_MAX_CHARS} characters, such as the computer or script that will use it.`;

export const CreateTokenFormSchema = z.object({
  [F.formId]: z.string().regex(NEW_TOKEN_ID, "The form is out of date: reload the page and try again."),
  [F.name]: z.string(NAME_MESSAGE).trim().min(1, NAME_MESSAGE).max(TOKEN_NAME_MAX_CHARS, NAME_MESSAGE),
  [F.lifetimeDays]: z
    .enum(LIFETIMES, LIFETIME_MESSAGE)
    .transform((days) => Number(days) as (typeof TOKEN_LIFETIME_DAYS)[number]),
});
export type CreateTokenForm = z.infer<typeof CreateTokenFormSchema>;

const confirm = z.literal(CONFIRM_YES).optional();

export const RevokeFormSchema = z.object({
  [F.tokenId]: z
    .string()
    .regex(TOKEN_ID, "No such token: go back to the tokens page and pick one from the list."),
  [F.confirm]: confirm,
});

export const DisconnectFormSchema = z.object({
  [F.grantId]: z
    .string()
    .min(1, "No such app: go back to the tokens page and pick one from the list.")
    .max(200, "No such app: go back to the tokens page and pick one from the list."),
  [F.confirm]: confirm,
});

const NoticeSchema = z.enum(Object.values(NOTICES) as [Notice, ...Notice[]]);

/** The `?notice=` of a redirect back to the list; anything else shows no notice. */
export function readNotice(value: string | undefined): Notice | undefined {
  const parsed = NoticeSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** The form's fields as strings (a file field or a repeated field is not one of ours: left out). */
export function formFields(body: Record<string, unknown>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) if (typeof value === "string") fields[name] = value;
  return fields;
}

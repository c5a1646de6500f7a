// The picker's Delegate form (one per ticket) and the notice after it, parsed with zod into the API's own
// DelegateBody: a tracker issue by its identifier, a code-host issue by repository and number.
import { z } from "zod";
import { type DelegateBody, DelegateBodySchema } from "../../../domain/tickets/delegate.js";
import type { ApiTicket } from "../../../domain/tickets/search.js";

export const DELEGATE_FIELDS = { source: "source", id: "id", repo: "repo", number: "number" } as const;
/** The query parameter of the picker after a delegation: the ticket's identifier. */
export const DELEGATED_PARAM = "delegated";

const F = DELEGATE_FIELDS;

/** The hidden fields of a ticket's Delegate form. */
export function delegateFieldsOf(ticket: ApiTicket): Record<string, string> {
  if (ticket.source === "tracker") return { [F.source]: "tracker", [F.id]: ticket.identifier };
  const at = ticket.identifier.lastIndexOf("#");
  return {
    [F.source]: "codehost",
    [F.repo]: ticket.identifier.slice(0, at),
    [F.number]: ticket.identifier.slice(at + 1),
  };
}

const PICK_AGAIN = "The form names no ticket: go back to the tickets and press Delegate on one.";

const DelegateFormSchema = z
  .object({
    [F.source]: z.enum(["tracker", "codehost"], PICK_AGAIN),
    [F.id]: z.string().optional(),
    [F.repo]: z.string().optional(),
    [F.number]: z
      .string()
      .regex(/^[1-9][0-9]{0,9}$/, PICK_AGAIN)
      .optional(),
  })
  .transform((form) =>
    form.source === "tracker"
      ? { source: "tracker" as const, id: form.id }
      : { source: "codehost" as const, repo: form.repo, number: Number(form.number) },
  )
  .pipe(DelegateBodySchema);

export type ParsedDelegateForm = { ok: true; body: DelegateBody } | { ok: false; reason: string };

export function parseDelegateForm(fields: Record<string, string>): ParsedDelegateForm {
  const parsed = DelegateFormSchema.safeParse(fields);
  return parsed.success ? { ok: true, body: parsed.data } : { ok: false, reason: PICK_AGAIN };
}

/** How the notice names a delegated ticket: the tracker identifier, or `repo#number`. */
export const identifierOf = (body: DelegateBody): string =>
  body.source === "tracker" ? body.id : `${body.repo}#${body.number}`;

const IDENTIFIER = /^[A-Za-z0-9._/-]{1,200}(#[1-9][0-9]{0,9})?$/;

/** The `?delegated=` of the redirect back to the picker; anything else shows no notice. */
export const readDelegated = (value: string | undefined): string | undefined =>
  value && IDENTIFIER.test(value) ? value : undefined;

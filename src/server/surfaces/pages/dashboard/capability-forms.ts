// The request page's secret form, parsed into the secrets PUT's own body (PutSecretBodySchema) bound to the
// request. A refusal names the field to fix and never repeats the value; the page never shows the value again.
import { z } from "zod";
import { type PutSecretBody, PutSecretBodySchema } from "../../../../transport/wire.js";

export const SECRET_FIELDS = { name: "name", value: "value", allowedHosts: "allowedHosts" } as const;
/** After a redirect back to the request page: what was just done. */
export const DONE_PARAM = "done";
export const DONE = { dismissed: "dismissed", secret: "secret" } as const;
export type Done = (typeof DONE)[keyof typeof DONE];

const F = SECRET_FIELDS;

export type ParsedSecretForm =
  | { ok: true; name: string; body: PutSecretBody }
  | { ok: false; reason: string; name: string; allowedHosts: string };

/** Approved hosts as typed: one a line (commas also separate), blanks ignored. */
export const splitHosts = (text: string): string[] =>
  text
    .split(/[\n,]/)
    .map((host) => host.trim())
    .filter((host) => host.length > 0);

const FIELD_REASONS: Record<string, string> = {
  value: "Enter the secret's value: 1 to 65,536 characters, with no NUL character.",
  capabilityRequestId: "The form is out of date: reload the request page and try again.",
};

export function parseSecretForm(fields: Record<string, string>, requestId: string): ParsedSecretForm {
  const name = (fields[F.name] ?? "").trim();
  const hostsText = fields[F.allowedHosts] ?? "";
  const parsed = PutSecretBodySchema.safeParse({
    value: fields[F.value] ?? "",
    allowedHosts: splitHosts(hostsText),
    capabilityRequestId: requestId,
  });
  if (parsed.success) return { ok: true, name, body: parsed.data };
  const issue = parsed.error.issues[0]!;
  const field = String(issue.path[0] ?? "");
  const reason =
    FIELD_REASONS[field] ??
    (field === "allowedHosts"
      ? issue.path.length > 1
        ? `Approved hosts: ${issue.message}`
        : "Give at least one approved host, one a line."
      : "Check the form and send it again.");
  return { ok: false, reason, name, allowedHosts: hostsText };
}

const DoneSchema = z.enum([DONE.dismissed, DONE.secret]);
export const readDone = (value: string | undefined): Done | undefined => {
  const parsed = DoneSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
};

// The settings page's Agent form (pure): one select, `agent`, whose value is a catalog agent's id or empty for the
// service default, and the notice after a change. Parsed with zod; which ids are allowed is the domain's rule.
import { z } from "zod";

export const AGENT_FIELD = "agent";
/** The query parameter of the settings page after a change. */
export const AGENT_SAVED_PARAM = "agent";
export const AGENT_SAVED = "saved";

const PICK_AGAIN = "The form names no agent: pick one from the list and save it again.";

/** The select's value: a catalog id, or "" for the service default (null). */
const AgentFormSchema = z.object({
  [AGENT_FIELD]: z
    .string(PICK_AGAIN)
    .max(100, PICK_AGAIN)
    .transform((value) => (value === "" ? null : value)),
});

export type ParsedAgentForm = { ok: true; agentId: string | null } | { ok: false; reason: string };

export function parseAgentForm(fields: Record<string, string>): ParsedAgentForm {
  const parsed = AgentFormSchema.safeParse(fields);
  return parsed.success ? { ok: true, agentId: parsed.data.agent } : { ok: false, reason: PICK_AGAIN };
}

export const readAgentSaved = (value: string | undefined): boolean => value === AGENT_SAVED;

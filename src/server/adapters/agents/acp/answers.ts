// The agent's answers the session relies on, checked once (the SDK types them but does not check them): a field
// missing or of the wrong type is the agent not speaking ACP, said in the turn's reason.
import { z } from "zod";

export const InitializeAnswerSchema = z.looseObject({
  protocolVersion: z.number().int(),
  agentCapabilities: z.looseObject({ loadSession: z.boolean().optional() }).optional(),
  agentInfo: z.looseObject({ name: z.string(), version: z.string() }).nullish(),
});

export const NewSessionAnswerSchema = z.looseObject({ sessionId: z.string().min(1) });

export const PromptAnswerSchema = z.looseObject({ stopReason: z.string().min(1) });

/** What was wrong with an answer, in a few words: the first problem's path and message. */
export function describeProblem(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.join(".") || "(answer)"}: ${issue.message}`;
}

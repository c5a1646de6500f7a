// The scripted agent's rules as the seed document writes them (kept apart from the adapter, which runs git).
import { z } from "zod";

const RelativePath = z
  .string()
  .min(1)
  .max(200)
  .refine((p) => !p.startsWith("/") && !p.split("/").includes(".."), "must be a relative path without '..'");

export const ScriptedRuleSchema = z.object({
  match: z.string().min(1).max(200).optional(),
  kind: z.enum(["response", "clarify"]).default("response"),
  /** The reply; `{prompt}` is replaced by the last user message's first line. */
  reply: z.string().min(1).max(10_000).default("Done."),
  delayMs: z.number().int().min(0).max(3_600_000).default(0),
  /** Files written in the sandbox and reported as produced. */
  files: z.record(RelativePath, z.string().max(100_000)).default({}),
  /** Commit `files` on a branch, push it to the code host and open a pull request. */
  pullRequest: z
    .object({ branch: z.string().min(1).max(100).optional(), title: z.string().min(1).max(200).optional() })
    .optional(),
  error: z.string().min(1).max(500).optional(),
  needsAccess: z.string().min(1).max(500).optional(),
});
export type ScriptedRule = z.infer<typeof ScriptedRuleSchema>;

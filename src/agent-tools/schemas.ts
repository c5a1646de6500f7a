// What the agent sends each tool, and the record of a call in the turn-requests file. The file is read back
// as untrusted (the agent could write it by hand), so a record is checked with the same limits as a call.
import * as z from "zod";
import { AGENT_TOOLS_LIMITS } from "./wire.js";

const QuestionSchema = z
  .string()
  .trim()
  .min(1)
  .max(AGENT_TOOLS_LIMITS.questionChars)
  .describe("The question, complete enough for the user to answer without reading your working notes");

const TitleSchema = z
  .string()
  .trim()
  .min(1)
  .max(AGENT_TOOLS_LIMITS.titleChars)
  .regex(/^[^\r\n]*$/, "must be one line")
  .describe("The pull request's title: one line");

const BodySchema = z
  .string()
  .max(AGENT_TOOLS_LIMITS.bodyChars)
  .describe(
    "Your notes for reviewers (Markdown): what changed and why, what you checked. Baton puts them after its " +
      "disclosure. Never a secret or raw command output",
  );

const DraftSchema = z.boolean().describe("Open it as a draft (default false)");

/** One required check as `baton disclose --check` takes it: no `=` in the name, one line each. */
const CheckSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .max(AGENT_TOOLS_LIMITS.checkNameChars)
    .regex(/^[^=\r\n]*$/, "must be one line without '='")
    .describe("The check as the repository's agent instructions name it, e.g. `npm test`"),
  result: z.enum(["passed", "failed", "not_run"]).describe("What happened when you ran it"),
  note: z
    .string()
    .trim()
    .max(AGENT_TOOLS_LIMITS.checkNoteChars)
    .regex(/^[^\r\n]*$/, "must be one line")
    .optional()
    .describe("Why it failed or did not run, in a few words; never raw output"),
});

const ChecksSchema = z
  .array(CheckSchema)
  .max(AGENT_TOOLS_LIMITS.checks)
  .describe(
    "Every check the repository's agent instructions require, with its result. Baton's disclosure lists them; " +
      "the pull request is a draft when one failed or did not run",
  );

export const AskUserInputSchema = z.object({ question: QuestionSchema });
export type AskUserInput = z.infer<typeof AskUserInputSchema>;

export const OpenPullRequestInputSchema = z.object({
  title: TitleSchema,
  body: BodySchema.optional(),
  draft: DraftSchema.optional(),
  checks: ChecksSchema.optional(),
});
export type OpenPullRequestInput = z.infer<typeof OpenPullRequestInputSchema>;
export type ReportedCheck = z.infer<typeof CheckSchema>;

/** When the call was made, in UTC (`2026-11-28T09:15:02.113Z`). */
const AtSchema = z.iso.datetime();

/** One line of the turn-requests file: a tool call, named by `tool`, with its arguments and time. */
export const TurnRequestSchema = z.discriminatedUnion("tool", [
  z.object({ tool: z.literal("ask_user"), at: AtSchema, question: QuestionSchema }),
  z.object({
    tool: z.literal("open_pull_request"),
    at: AtSchema,
    title: TitleSchema,
    body: BodySchema.optional(),
    draft: DraftSchema,
    checks: ChecksSchema.optional(),
  }),
]);
export type TurnRequest = z.infer<typeof TurnRequestSchema>;

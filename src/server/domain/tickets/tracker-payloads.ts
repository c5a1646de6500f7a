// The fields the service reads of the tracker's webhook payloads (Linear's shape: `{action, type, data,
// updatedFrom, actor, organizationId, webhookTimestamp, url}` for `Issue`, `Comment` and `OAuthApp`), parsed
// once with zod; everything else is ignored.
import { z } from "zod";

export const TrackerEnvelopeSchema = z.object({
  action: z.string(),
  type: z.string(),
  organizationId: z.string(),
  actor: z.object({ id: z.string(), type: z.string().optional(), name: z.string().optional() }).optional(),
  data: z.unknown().optional(),
  updatedFrom: z.record(z.string(), z.unknown()).optional(),
  url: z.string().optional(),
});
export type TrackerEnvelope = z.infer<typeof TrackerEnvelopeSchema>;

export const TrackerIssueDataSchema = z.object({
  id: z.string(),
  identifier: z.string(),
  title: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  assigneeId: z.string().nullable().optional(),
  labelIds: z.array(z.string()).optional(),
  labels: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
  state: z.object({ type: z.string() }).optional(),
});
export type TrackerIssueData = z.infer<typeof TrackerIssueDataSchema>;

export const TrackerCommentDataSchema = z.object({
  id: z.string(),
  body: z.string(),
  issueId: z.string(),
  userId: z.string().nullable().optional(),
});

/** The `type` values the service acts on, and the state types that end an issue. */
export const TRACKER_TYPES = { issue: "Issue", comment: "Comment", oauthApp: "OAuthApp" } as const;
export const TRACKER_ENDED_STATE_TYPES: readonly string[] = ["completed", "canceled"];

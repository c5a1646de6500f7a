// What one instance asks of the instance that owns a box (through adapters/instances/relay.ts), and how the owner
// serves it: each request's body is checked with zod as it arrives, and the owner does the work itself or refuses
// (a relayed request is never relayed again).
import { z } from "zod";
import type { InstanceRelay } from "../instances/relay.js";
import type { SandboxManager, SandboxRefusal } from "./manager.js";

export const BOX_REQUESTS = {
  exec: "box.exec",
  copyOut: "box.copy_out",
  event: "box.event",
} as const;
export type BoxRequestKind = (typeof BOX_REQUESTS)[keyof typeof BOX_REQUESTS];

const OwnerSchema = z.object({ workspaceId: z.string().min(1), engagementId: z.string().min(1) });
const ExecRequestSchema = z.object({
  sandboxId: z.string().min(1),
  owner: OwnerSchema,
  argv: z.array(z.string()).min(1),
  options: z.object({
    timeoutMs: z.number().positive(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    stdin: z.string().optional(),
  }),
});
const CopyOutRequestSchema = z.object({
  sandboxId: z.string().min(1),
  owner: OwnerSchema,
  pathInBox: z.string().min(1),
});
const EventRequestSchema = z.object({
  sandboxId: z.string().min(1),
  owner: OwnerSchema,
  event: z.enum(["work_finished", "cancelled", "deleted"]),
});

export const ExecResultSchema = z.object({
  exitCode: z.number(),
  stdout: z.string(),
  stderr: z.string(),
  timedOut: z.boolean(),
});

const REFUSAL_REASONS: readonly SandboxRefusal["reason"][] = [
  "workspace_not_found",
  "engagement_elsewhere",
  "sandbox_not_found",
  "batonrc_invalid",
  "checkout_refused",
  "owner_unreachable",
];

export function isRefusalReason(reason: string | undefined): reason is SandboxRefusal["reason"] {
  return (REFUSAL_REASONS as readonly (string | undefined)[]).includes(reason);
}

/** Serves other instances' requests for `manager`'s boxes. */
export function serveBoxRequests(relay: InstanceRelay, manager: SandboxManager): void {
  relay.handle(BOX_REQUESTS.exec, async (body) => {
    const { sandboxId, owner, argv, options } = ExecRequestSchema.parse(body);
    return manager.exec(sandboxId, owner, argv, options, true);
  });
  relay.handle(BOX_REQUESTS.copyOut, async (body) => {
    const { sandboxId, owner, pathInBox } = CopyOutRequestSchema.parse(body);
    return (await manager.copyOutArchive(sandboxId, owner, pathInBox, true)).toString("base64");
  });
  relay.handle(BOX_REQUESTS.event, async (body) => {
    const { sandboxId, owner, event } = EventRequestSchema.parse(body);
    if (event === "deleted") return manager.remove(sandboxId, owner, true);
    return event === "work_finished"
      ? manager.finishWork(sandboxId, owner, true)
      : manager.cancel(sandboxId, owner, true);
  });
}

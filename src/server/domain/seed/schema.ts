// The seed document `baton serve --seed <file>` and `POST /admin/v1/seed` accept. Documented in the README.
import { z } from "zod";
import { EnvValueSchema, RepositorySlugSchema, ShellNameSchema } from "../../../envfile/overlay.js";
import { ApprovedDestinationSchema, ReadinessSchema } from "../../../transport/wire.js";
import { checkBatonPath } from "../operations/managed-startup.js";
import { SeedAgentSchema, SeedMemberIdentitySchema, SeedWorkspaceTasksSchema } from "./tasks-seed.js";

const IdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,128}$/, "must be 1 to 128 letters, digits, '_', '.', ':' or '-'");

const BatonPathSchema = z
  .string()
  .superRefine((path, ctx) => {
    const problem = checkBatonPath(path);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .describe("a path under ~/.baton/: no '..' or empty segment, no backslash, no control character");

export const SeedEnvironmentSchema = z.object({
  versionId: IdSchema,
  // Paths are relative to the checkout root. They are stored as given and checked when a handoff is built, so an
  // operator's bad path shows up as `delivery_failed` with a disclosure, not as a refused seed.
  dockerfilePath: z.string().min(1).nullable().default(null),
  agentInstructionsPath: z.string().min(1).nullable().default(null),
  startupScriptPath: z.string().min(1).nullable().default(null),
  // Where the sandbox installs the startup runner and where the runner writes its evidence. These have no
  // repository-specific meaning, so an unsafe one is refused here at once (a value stored by other means still
  // gives `delivery_failed`). Absent: ~/.baton/runner/baton-runner.cjs and ~/.baton/evidence/<owner>__<name>.json.
  runPath: BatonPathSchema.optional(),
  evidencePath: BatonPathSchema.optional(),
  readiness: ReadinessSchema.default({ checks: [] }),
  startupTimeoutSeconds: z.number().int().positive().max(3600).optional(),
});

export const SeedSecretSchema = z.object({
  name: ShellNameSchema,
  value: EnvValueSchema.refine((v) => v.length > 0, "must not be empty"),
  allowedHosts: z.array(ApprovedDestinationSchema).min(1),
});

export const SeedRepositorySchema = z
  .object({
    id: IdSchema.optional(),
    repository: RepositorySlugSchema,
    connected: z.boolean().default(true),
    sandboxEnv: z.record(ShellNameSchema, EnvValueSchema).default({}),
    secrets: z.array(SeedSecretSchema).default([]),
    environment: SeedEnvironmentSchema.optional(),
  })
  .superRefine((repo, ctx) => {
    const names = new Set(Object.keys(repo.sandboxEnv));
    repo.secrets.forEach((secret, i) => {
      if (names.has(secret.name)) {
        ctx.addIssue({ code: "custom", path: ["secrets", i, "name"], message: "is also a sandboxEnv name" });
      }
      names.add(secret.name);
    });
  });

export const SeedWorkspaceSchema = SeedWorkspaceTasksSchema.extend({
  id: IdSchema,
  name: z.string().min(1).max(200),
  rollout: z.object({ repositoryEnvironments: z.boolean() }).default({ repositoryEnvironments: false }),
  members: z
    .array(
      SeedMemberIdentitySchema.extend({
        email: z.email(),
        role: z.enum(["owner", "admin", "member"]),
        /** A personal access token for the workspace routes (capability requests, secrets), `btn_` + 16+ chars. */
        token: z
          .string()
          .regex(
            /^btn_[A-Za-z0-9_-]{16,200}$/,
            "must be btn_ followed by 16 to 200 letters, digits, '_' or '-'",
          )
          .optional(),
      }),
    )
    .default([]),
  repositories: z.array(SeedRepositorySchema).default([]),
  engagements: z.array(z.object({ id: IdSchema })).default([]),
});

export const SeedDocumentSchema = z.object({
  workspaces: z.array(SeedWorkspaceSchema),
  /** The scripted agent's rules (`baton serve --agent scripted`, the default). */
  agent: SeedAgentSchema.optional(),
});

export type SeedDocument = z.infer<typeof SeedDocumentSchema>;
export type SeedRepository = z.infer<typeof SeedRepositorySchema>;
export type SeedWorkspace = z.infer<typeof SeedWorkspaceSchema>;

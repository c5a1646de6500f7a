// The overlay document: what one activation hands the sandbox. `baton env apply` reads it; `baton serve` writes it.
import * as z from "zod";

/** A POSIX shell variable name. */
export const SHELL_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const RepositorySlugSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "must be owner/name (letters, digits, '.', '_' or '-')");

export const ShellNameSchema = z
  .string()
  .regex(SHELL_NAME_PATTERN, "must match [A-Za-z_][A-Za-z0-9_]* to be a shell variable name");

/**
 * Environment values cannot hold NUL (execve() would cut them there) or a lone UTF-16 surrogate (JSON's `\ud800`
 * decodes to one; written out as UTF-8 it would silently become U+FFFD, a different value).
 */
export const EnvValueSchema = z
  .string()
  .refine((value) => !value.includes("\0"), {
    message: "contains a NUL byte, which no environment variable can hold",
  })
  // With the u flag a paired surrogate is one astral code point, so only a lone one matches.
  .refine((value) => !/[\uD800-\uDFFF]/u.test(value), {
    message: "contains a lone UTF-16 surrogate; send well-formed Unicode",
  });

export const VariableSourceSchema = z.enum(["sandbox.env", "secret"]);

export const OverlayVariableSchema = z.object({
  name: ShellNameSchema,
  assigned: ShellNameSchema,
  value: EnvValueSchema,
  source: VariableSourceSchema,
});

export const OverlayRepositorySchema = z.object({
  repository: RepositorySlugSchema,
  repositoryId: z.string().min(1),
  variables: z.array(OverlayVariableSchema),
});

export const OverlaySchema = z
  .object({
    revision: z.number().int().positive(),
    repositories: z.array(OverlayRepositorySchema),
  })
  .superRefine((overlay, ctx) => {
    const seen = new Map<string, string>();
    overlay.repositories.forEach((repo, r) => {
      repo.variables.forEach((variable, v) => {
        const owner = seen.get(variable.assigned);
        if (owner !== undefined) {
          ctx.addIssue({
            code: "custom",
            path: ["repositories", r, "variables", v, "assigned"],
            message: `assigned name ${variable.assigned} is already used by ${owner}`,
          });
        }
        seen.set(variable.assigned, `${repo.repository} ${variable.name}`);
      });
    });
  });

export type Overlay = z.infer<typeof OverlaySchema>;
export type OverlayRepository = z.infer<typeof OverlayRepositorySchema>;
export type OverlayVariable = z.infer<typeof OverlayVariableSchema>;
export type VariableSource = z.infer<typeof VariableSourceSchema>;

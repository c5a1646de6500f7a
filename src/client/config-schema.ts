// The client's config file (reference rule 8) as data: the service address, the token, what kind it is, the
// default workspace and the sign-in's dates. Parsed with zod; unknown keys are dropped on the next write.
import * as z from "zod";

export const TOKEN_KINDS = ["personal", "signin"] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

const Instant = z.iso.datetime({ offset: true });

export const SavedConfigSchema = z.object({
  apiUrl: z.string().min(1),
  token: z.string().min(1),
  kind: z.enum(TOKEN_KINDS),
  workspace: z.string().min(1).nullable(),
  signedInAt: Instant,
  lastUsedAt: Instant,
  /** When the service said the browser sign-in's token expires, if it did. */
  expiresAt: Instant.nullable().default(null),
});
export type SavedConfig = z.infer<typeof SavedConfigSchema>;

/** The file's text: two-space JSON and a newline, keys in a stable order. */
export function renderConfig(config: SavedConfig): string {
  const ordered: SavedConfig = {
    apiUrl: config.apiUrl,
    token: config.token,
    kind: config.kind,
    workspace: config.workspace,
    signedInAt: config.signedInAt,
    lastUsedAt: config.lastUsedAt,
    expiresAt: config.expiresAt,
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

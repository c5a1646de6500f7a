// The client's config file (reference rule 8) as data: the service address, the token, what kind it is, the
// default workspace, the sign-in's dates and, for a browser sign-in, what renews its hour-long access token.
// Parsed with zod; unknown keys are dropped on the next write.
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
  /** When the service said the browser sign-in's access token expires, if it did. */
  expiresAt: Instant.nullable().default(null),
  /** A browser sign-in's refresh token, which renews the access token before it expires (rotated on every use). */
  refreshToken: z.string().min(1).nullable().default(null),
  /** The client id this computer registered as for that sign-in; a refresh names it. */
  clientId: z.string().min(1).nullable().default(null),
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
    refreshToken: config.refreshToken,
    clientId: config.clientId,
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

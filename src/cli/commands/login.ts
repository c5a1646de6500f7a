// `baton login [-w <id>] [--no-browser] [--token] [--api-url <url>]` (reference rule 7): a personal access token
// typed without echo (--token) or piped in, or a browser sign-in; the token is checked with GET /v1/me before
// anything is saved, and the default workspace is settled before the config file is written.
import type { Command } from "commander";
import { createApiClient } from "../../client/api-client.js";
import { parseApiUrlFlag, resolveApiUrl } from "../../client/api-url.js";
import { locateConfig, readSavedConfig, saveConfig } from "../../client/config.js";
import { chooseDefaultWorkspace, chooseLoginMode } from "../../client/login-rules.js";
import type { Me, Workspace } from "../../client/schemas.js";
import { UsageError } from "../../errors.js";
import { addWorkspaceFlag } from "../client-command.js";
import { askForWorkspace } from "../client-prompts.js";
import type { CommandContext } from "../context.js";
import { writeLine, writeLines } from "../io.js";
import { checkToken, obtainToken } from "../login-token.js";
import { isTerminal } from "../terminal.js";

interface LoginOptions {
  workspace?: string;
  browser: boolean;
  token?: boolean;
  apiUrl?: string;
}

export function declare(command: Command, context: CommandContext): void {
  addWorkspaceFlag(command.summary("sign in"), "the default workspace to save (must be one of yours)")
    .option(
      "--no-browser",
      "print the sign-in address instead of opening a browser (it must run on this computer)",
    )
    .option(
      "--token",
      "read a personal access token (typed without echo) instead of signing in with a browser",
    )
    .option("--api-url <url>", "the service's https address (saved for later commands)", parseApiUrlFlag)
    .action(
      context.action(async (options: LoginOptions) => {
        const { io } = context;
        const location = locateConfig(io.env);
        const apiUrl = resolveApiUrl({
          ...(options.apiUrl === undefined ? {} : { flag: options.apiUrl }),
          env: io.env,
          ...savedAddress(location),
        });
        const terminal = isTerminal(io);
        const mode = chooseLoginMode({
          token: options.token === true,
          browser: options.browser,
          stdinIsTerminal: terminal,
        });
        const obtained = await obtainToken(context, mode, apiUrl, options.browser);
        const api = createApiClient({ apiUrl, token: obtained.token, log: context.log });
        try {
          const me = await checkToken(() => api.me(), obtained.kind);
          const workspace = await settleDefault(
            context,
            options.workspace,
            me,
            mode !== "token-piped" && terminal,
          );
          if (workspace === "refused") {
            // A browser sign-in made just now would otherwise stay live with nothing saved to end it.
            if (obtained.kind === "signin") await api.revokeToken().catch(() => undefined);
            throw new UsageError(
              `${options.workspace} is not one of your workspaces (${me.workspaces.map((w) => w.id).join(", ") || "none"}); nothing was saved. Run baton login again with -w set to one of them`,
            );
          }
          const now = new Date().toISOString();
          saveConfig(location, {
            apiUrl,
            token: obtained.token,
            kind: obtained.kind,
            workspace: workspace?.id ?? null,
            signedInAt: now,
            lastUsedAt: now,
            expiresAt: obtained.expiresAt,
            refreshToken: obtained.refreshToken,
            clientId: obtained.clientId,
          });
          const login = me.user.codehostLogin ? ` (${me.user.codehostLogin})` : "";
          writeLines(io.stdout, [
            `Signed in to ${apiUrl} as ${me.user.name}${login}.`,
            workspace
              ? `Default workspace: ${workspace.id} (${workspace.name}).`
              : "No default workspace saved.",
          ]);
          if (!workspace && me.workspaces.length > 1) {
            writeLine(
              io.stderr,
              `You belong to ${me.workspaces.length} workspaces (${me.workspaces.map((w) => w.id).join(", ")}): set the default with baton workspace <workspace-id>, or pass -w to each command.`,
            );
          }
        } finally {
          api.close();
        }
        return undefined;
      }),
    );
}

/** Login reuses the saved address (a self-hosted service) unless told otherwise; a broken file is replaced. */
function savedAddress(location: ReturnType<typeof locateConfig>): { saved?: string } {
  try {
    const saved = readSavedConfig(location);
    return saved ? { saved: saved.apiUrl } : {};
  } catch {
    return {};
  }
}

async function settleDefault(
  context: CommandContext,
  flag: string | undefined,
  me: Me,
  canAsk: boolean,
): Promise<Workspace | undefined | "refused"> {
  const choice = chooseDefaultWorkspace({ flag, workspaces: me.workspaces, canAsk });
  switch (choice.kind) {
    case "chosen":
      return choice.workspace;
    case "not-yours":
      return "refused";
    case "ask":
      return askForWorkspace(context.io, me.workspaces);
    case "none-several":
    case "none-empty":
      return undefined;
  }
}

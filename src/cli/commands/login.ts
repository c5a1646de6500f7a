// `baton login [-w <id>] [--no-browser] [--token] [--api-url <url>]` (reference rule 7): a personal access token
// typed without echo (--token) or piped in, or a browser sign-in; the token is checked with GET /v1/me before
// anything is saved, and the default workspace is settled before the config file is written.
import type { Command } from "commander";
import { createApiClient } from "../../client/api-client.js";
import { parseApiUrlFlag, resolveApiUrl } from "../../client/api-url.js";
import { locateConfig, readSavedConfig, saveConfig } from "../../client/config.js";
import type { TokenKind } from "../../client/config-schema.js";
import { BROWSER_SIGN_IN_TIMEOUT_MS, loadBrowserSignIn } from "../../client/load-browser-sign-in.js";
import { chooseDefaultWorkspace, chooseLoginMode, type LoginMode } from "../../client/login-rules.js";
import type { Me, Workspace } from "../../client/schemas.js";
import { isBatonError, ServiceError, UsageError } from "../../errors.js";
import { addWorkspaceFlag } from "../client-command.js";
import { askForWorkspace } from "../client-prompts.js";
import type { CommandContext } from "../context.js";
import { writeLine, writeLines } from "../io.js";
import { isTerminal, readPipedInput, readSecretFromTerminal } from "../terminal.js";

interface LoginOptions {
  workspace?: string;
  browser: boolean;
  token?: boolean;
  apiUrl?: string;
}

interface Obtained {
  token: string;
  kind: TokenKind;
  expiresAt: string | null;
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

async function obtainToken(
  context: CommandContext,
  mode: LoginMode,
  apiUrl: string,
  openBrowser: boolean,
): Promise<Obtained> {
  const { io } = context;
  if (mode === "browser") {
    const signIn = await loadBrowserSignIn();
    const result = await signIn({
      apiUrl,
      openBrowser,
      timeoutMs: BROWSER_SIGN_IN_TIMEOUT_MS,
      showUrl: (url) =>
        writeLines(io.stderr, [
          "To sign in, open this address in a browser on this computer (within 5 minutes):",
          `  ${url}`,
        ]),
    });
    return { token: result.accessToken, kind: "signin", expiresAt: result.expiresAt };
  }
  const raw =
    mode === "token-typed"
      ? await readSecretFromTerminal(io, "Personal access token (typing is hidden): ")
      : await readPipedInput(io);
  const token = raw.trim().split(/\r?\n/)[0]?.trim() ?? "";
  if (token === "") {
    throw new UsageError(
      mode === "token-typed"
        ? "no token was typed; nothing was saved"
        : "stdin was empty: pipe in a personal access token (printf '%s' \"$TOKEN\" | baton login), or pass --no-browser to sign in with a browser; nothing was saved",
    );
  }
  if (/\s/.test(token))
    throw new UsageError("an access token has no spaces: pipe in just the token; nothing was saved");
  return { token, kind: "personal", expiresAt: null };
}

async function checkToken(read: () => Promise<Me>, kind: TokenKind): Promise<Me> {
  try {
    return await read();
  } catch (error) {
    if (isBatonError(error) && error.code === "unauthorised") {
      const what = kind === "personal" ? "this access token" : "the token of this sign-in";
      throw new ServiceError(
        "unauthorised",
        `the service refused ${what} (401 invalid_token): check it was copied whole and has not expired or been revoked, or make a new one on the access-tokens page; nothing was saved`,
        { cause: error },
      );
    }
    throw error;
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

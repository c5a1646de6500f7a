// How `baton login` gets its token (reference rule 7) and checks it with GET /v1/me before anything is saved:
// typed without echo, piped in, or from the browser sign-in. Never prints the token.

import { signInWithBrowser } from "../client/browser-sign-in.js";
import type { TokenKind } from "../client/config-schema.js";
import type { LoginMode } from "../client/login-rules.js";
import type { Me } from "../client/schemas.js";
import { isBatonError, ServiceError, UsageError } from "../errors.js";
import type { CommandContext } from "./context.js";
import { writeLines } from "./io.js";
import { readPipedInput, readSecretFromTerminal } from "./terminal.js";

/** Reference rule 7: the client stops waiting for the approval after 5 minutes. */
const BROWSER_SIGN_IN_TIMEOUT_MS = 5 * 60 * 1000;

export interface Obtained {
  token: string;
  kind: TokenKind;
  expiresAt: string | null;
  /** A browser sign-in's refresh token and client id; null for a personal access token. */
  refreshToken: string | null;
  clientId: string | null;
}

export async function obtainToken(
  context: CommandContext,
  mode: LoginMode,
  apiUrl: string,
  openBrowser: boolean,
): Promise<Obtained> {
  const { io } = context;
  if (mode === "browser") {
    const result = await signInWithBrowser({
      apiUrl,
      openBrowser,
      timeoutMs: BROWSER_SIGN_IN_TIMEOUT_MS,
      showUrl: (url) =>
        writeLines(io.stderr, [
          "To sign in, open this address in a browser on this computer (within 5 minutes):",
          `  ${url}`,
        ]),
    });
    return {
      token: result.accessToken,
      kind: "signin",
      expiresAt: result.expiresAt,
      refreshToken: result.refreshToken,
      clientId: result.clientId,
    };
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
  return { token, kind: "personal", expiresAt: null, refreshToken: null, clientId: null };
}

export async function checkToken(read: () => Promise<Me>, kind: TokenKind): Promise<Me> {
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

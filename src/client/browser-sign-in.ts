// Browser sign-in (RFC 8252, OAuth 2.0 for native apps): discover the service's authorization server (RFC 8414),
// register as a native public client, open the approval page with PKCE S256 and a `state`, wait for the browser
// at a loopback address on this computer, check `iss` (RFC 9207), and trade the code for an access token bound to
// the API (RFC 8707), with the refresh token that renews it (refresh-sign-in.ts). Tokens are returned, never
// printed or logged.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import * as z from "zod";
import type { BatonError } from "../errors.js";
import {
  discoverAuthorizationServer,
  type IssuedTokens,
  oauthClient,
  pathOn,
  readTokenAnswer,
  SIGN_IN_SCOPE,
  signInError,
} from "./authorization-server.js";
import { type CallbackPage, listenOnLoopback } from "./loopback-callback.js";
import { buildAuthorizationUrl, classifyCallback, makeSignInSecrets } from "./pkce.js";

export interface BrowserSignInOptions {
  apiUrl: string;
  openBrowser: boolean;
  /** Prints the approval URL when no browser was opened (the browser must run on this same computer). */
  showUrl(url: string): void;
  timeoutMs: number;
  now?: () => number;
  openUrl?: (url: string) => Promise<void>;
  signal?: AbortSignal;
}
/** The tokens, and the client id this computer registered as (a refresh names it: RFC 6749 section 6). */
export interface BrowserSignInResult extends IssuedTokens {
  clientId: string;
}

const CHECK_EVERY_MS = 250;

const RegistrationSchema = z.object({ client_id: z.string().min(1) });

export async function openWithSystemBrowser(url: string): Promise<void> {
  const { execa } = await import("execa");
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", '""', url.replace(/&/g, "^&")]]
        : ["xdg-open", [url]];
  await execa(command, args, { stdio: "ignore", detached: true, timeout: 10_000 });
}

export async function signInWithBrowser(options: BrowserSignInOptions): Promise<BrowserSignInResult> {
  const now = options.now ?? Date.now;
  const apiUrl = options.apiUrl.replace(/\/+$/, "");
  const origin = new URL(apiUrl).origin;
  const http = oauthClient(origin);
  let listener: Awaited<ReturnType<typeof listenOnLoopback>> | undefined;
  try {
    const meta = await discoverAuthorizationServer(http, apiUrl);
    if (!(meta.code_challenge_methods_supported ?? []).includes("S256"))
      throw signInError("the service does not offer PKCE S256; use `baton login --token` instead");
    const issuer = meta.issuer;
    const secrets = makeSignInSecrets(randomBytes(32), randomBytes(16));

    let settle!: (outcome: { code: string } | { error: BatonError }) => void;
    const outcome = new Promise<{ code: string } | { error: BatonError }>((resolve) => {
      settle = resolve;
    });
    listener = await listenOnLoopback((url): CallbackPage => {
      const seen = classifyCallback(url, { state: secrets.state, issuer });
      if (seen.kind === "ignore") return "ignored";
      if (seen.kind === "code") settle({ code: seen.code });
      else if (seen.kind === "denied")
        settle({
          error: signInError("the sign-in was denied in the browser; run `baton login` to try again"),
        });
      else settle({ error: signInError(`${seen.why}; run \`baton login\` again`) });
      return seen.kind === "code" ? "approved" : seen.kind === "denied" ? "denied" : "failed";
    });
    const registered = RegistrationSchema.safeParse(
      (
        await http.request({
          method: "POST",
          path: pathOn(origin, meta.registration_endpoint),
          doing: "registering this computer for sign-in",
          body: {
            client_name: `Baton CLI on ${hostname()}`,
            application_type: "native",
            token_endpoint_auth_method: "none",
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"],
            redirect_uris: ["http://127.0.0.1/callback"],
          },
        })
      ).body,
    );
    if (!registered.success)
      throw signInError("the service's registration answer was malformed; run `baton login` again");
    const resource = `${apiUrl}/v1`;
    const url = buildAuthorizationUrl({
      authorizationEndpoint: meta.authorization_endpoint,
      clientId: registered.data.client_id,
      redirectUri: listener.redirectUri,
      resource,
      scope: SIGN_IN_SCOPE,
      secrets,
    });
    let opened = false;
    if (options.openBrowser) {
      opened = await (options.openUrl ?? openWithSystemBrowser)(url).then(
        () => true,
        () => false,
      );
    }
    if (!opened) options.showUrl(url);

    const got = await waitFor(outcome, { now, timeoutMs: options.timeoutMs, signal: options.signal });
    if ("error" in got) throw got.error;
    const answer = await http.request({
      method: "POST",
      path: pathOn(origin, meta.token_endpoint),
      doing: "finishing the sign-in",
      form: {
        grant_type: "authorization_code",
        code: got.code,
        redirect_uri: listener.redirectUri,
        client_id: registered.data.client_id,
        code_verifier: secrets.verifier,
        resource,
      },
    });
    return { ...readTokenAnswer(answer.body, now()), clientId: registered.data.client_id };
  } finally {
    await listener?.close();
    http.close();
  }
}

/** Resolves with the browser's answer, or fails once `timeoutMs` has passed on `now` or the signal aborts. */
async function waitFor<T>(
  outcome: Promise<T>,
  { now, timeoutMs, signal }: { now: () => number; timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<T> {
  const started = now();
  let timer: NodeJS.Timeout | undefined;
  const minutes = Math.round(timeoutMs / 60_000);
  const waited = minutes >= 1 ? `${minutes} minutes` : `${Math.round(timeoutMs / 1000)} s`;
  const limit = new Promise<never>((_resolve, reject) => {
    const check = () => {
      if (signal?.aborted) return reject(signInError("the sign-in was interrupted; run `baton login` again"));
      if (now() - started >= timeoutMs)
        return reject(signInError(`no approval arrived within ${waited}; run \`baton login\` again`));
      timer = setTimeout(check, Math.min(CHECK_EVERY_MS, timeoutMs));
    };
    check();
  });
  try {
    return await Promise.race([outcome, limit]);
  } finally {
    clearTimeout(timer);
  }
}

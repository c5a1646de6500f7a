// Loads the browser sign-in (src/client/browser-sign-in.ts, the oauth slice's module) only when login needs it.
// The contract is restated here so login type-checks on its own; the specifier is built at run time, and
// "../client/" means dist/src/client/ both from tsc's dist/src/client/ and from the CLI bundles in dist/src/bundle/.
import { BatonError } from "../errors.js";

export interface BrowserSignInOptions {
  apiUrl: string;
  openBrowser: boolean;
  showUrl(url: string): void;
  timeoutMs: number;
  now?: () => number;
  openUrl?: (url: string) => Promise<void>;
  signal?: AbortSignal;
}
export interface BrowserSignInResult {
  accessToken: string;
  expiresAt: string | null;
}
export type SignInWithBrowser = (options: BrowserSignInOptions) => Promise<BrowserSignInResult>;

/** Reference rule 7: the client stops waiting for the approval after 5 minutes. */
export const BROWSER_SIGN_IN_TIMEOUT_MS = 5 * 60 * 1000;

export async function loadBrowserSignIn(): Promise<SignInWithBrowser> {
  const specifier = new URL("../client/browser-sign-in.js", import.meta.url).href;
  let loaded: { signInWithBrowser?: SignInWithBrowser };
  try {
    loaded = (await import(specifier)) as { signInWithBrowser?: SignInWithBrowser };
  } catch (error) {
    throw new BatonError(
      "internal",
      "browser sign-in is not available in this build of baton; sign in with a personal access token: baton login --token",
      { cause: error },
    );
  }
  if (typeof loaded.signInWithBrowser !== "function") {
    throw new BatonError(
      "internal",
      "browser sign-in module has no signInWithBrowser; use baton login --token",
    );
  }
  return loaded.signInWithBrowser;
}

// How git authenticates to the real code host as the App's installation (pure). A box gets the installation
// token's placeholder, never the token: `BATON_CODEHOST_TOKEN` for tools that call the API themselves, and git
// configured through GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n with an `http.<web url>/.extraHeader` that
// sends Basic `x-access-token:<placeholder>`; the egress proxy swaps the placeholder for the token on the code
// host's approved hosts only. The scripted agent, which runs on the service's machine, uses the same header with
// the real token. Variables, never argv or a file: nothing lands in `.git/config`, a process list or a log.
import { formatSecretPlaceholder } from "../../../transport/wire.js";

/** The user name the code host expects beside an installation token in HTTP Basic. */
export const INSTALLATION_TOKEN_USER = "x-access-token";
/** The box variable holding the installation token's placeholder. */
export const CODEHOST_TOKEN_VARIABLE = "BATON_CODEHOST_TOKEN";

/** What a box needs to push to a repository given by an installation: its credential id and the web base. */
export interface CodehostPushAccess {
  /** `sec_<32 hex>`: `baton-secret-<credentialId>` stands for the installation token. */
  credentialId: string;
  /** The code host's web base (`https://github.com`), where repositories are cloned from and pushed to. */
  webUrl: string;
}

export type GitConfigEntry = readonly [key: string, value: string];

/** `Authorization: Basic base64("x-access-token:<token>")`: the header git sends to the code host. */
export function installationAuthorizationHeader(token: string): string {
  return `Authorization: Basic ${Buffer.from(`${INSTALLATION_TOKEN_USER}:${token}`).toString("base64")}`;
}

/** The git config entry sending `header` on every request under `baseUrl` (a trailing slash is added). */
export function extraHeaderEntry(baseUrl: string, header: string): GitConfigEntry {
  return [`http.${baseUrl.replace(/\/+$/, "")}/.extraHeader`, header];
}

/** Where a box clones `owner/name` from at the code host. */
export function codehostRepoUrl(webUrl: string, repo: string): string {
  return `${webUrl.replace(/\/+$/, "")}/${repo}.git`;
}

/**
 * `env` with `entries` appended to the git config it already carries through GIT_CONFIG_COUNT (entries of its
 * own stay at their indexes), so two sources of git settings compose instead of replacing each other.
 */
export function appendGitConfig(
  env: Readonly<Record<string, string>>,
  entries: readonly GitConfigEntry[],
): Record<string, string> {
  const out = { ...env };
  const parsed = Number(env.GIT_CONFIG_COUNT ?? "0");
  let count = Number.isInteger(parsed) && parsed >= 0 ? parsed : 0;
  for (const [key, value] of entries) {
    out[`GIT_CONFIG_KEY_${count}`] = key;
    out[`GIT_CONFIG_VALUE_${count}`] = value;
    count += 1;
  }
  if (count > 0) out.GIT_CONFIG_COUNT = String(count);
  return out;
}

/** The box variables for pushing as the installation: the placeholder, and git's header carrying it. */
export function codehostPushEnvironment(
  access: CodehostPushAccess,
  env: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const placeholder = formatSecretPlaceholder(access.credentialId);
  return {
    ...appendGitConfig(env, [extraHeaderEntry(access.webUrl, installationAuthorizationHeader(placeholder))]),
    [CODEHOST_TOKEN_VARIABLE]: placeholder,
  };
}

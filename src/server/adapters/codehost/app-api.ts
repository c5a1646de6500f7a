// What the service needs from a real code host's App beyond the Codehost port: reading an installation and its
// repositories (the install callback) and the installation's token (pushes through the egress proxy, where the
// token stands behind a placeholder; the scripted agent's own pushes). The GitHub adapter implements it; with the
// local code host there is none (`deps.codehostApp` unset).

export interface InstallationToken {
  token: string;
  expiresAt: Date;
}

/** The installations a user can access, or the code host's refusal of the code that was to prove who they are. */
export type UserInstallations =
  | { ok: true; installationIds: string[] }
  /** The code was wrong, used or expired, or the App's client credentials were; the code host's own words. */
  | { ok: false; refusal: string };

export interface CodehostAppApi {
  /** The installation's account (App JWT). Throws CodehostError when the App has no such installation. */
  getInstallation(installationId: string): Promise<{ id: string; accountLogin: string }>;
  /** Every repository the installation gives, as `owner/name`, all pages read. */
  listInstallationRepos(installationId: string): Promise<string[]>;
  /**
   * The App's installations the user who got `code` can access (the code traded for their user-to-server token,
   * which is used once and dropped), or the code host's refusal of the code.
   */
  listUserInstallations(code: string): Promise<UserInstallations>;
  /** A token for the installation, cached until shortly before it expires. */
  installationToken(installationId: string): Promise<InstallationToken>;
  /** Hosts an installation token is approved for (the web host agents push to, the API host), as destinations. */
  readonly tokenDestinations: readonly string[];
}

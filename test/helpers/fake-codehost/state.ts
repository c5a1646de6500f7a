// The fake code host's state: the App, its installations and their repositories, each repository's issues and
// pull requests (which share numbers, as on GitHub), tokens, the rate-limit budget and the knobs tests turn.

export interface FakeIssue {
  id: number;
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  assignees: string[];
  comments: { id: number; body: string; user: string }[];
  /** Set for a pull request. */
  pull?:
    | { head: string; base: string; merged: boolean; mergedAt: string | null; draft?: boolean }
    | undefined;
}

export interface FakeRepo {
  fullName: string;
  id: number;
  defaultBranch: string;
  dir: string;
  issues: FakeIssue[];
}

export interface FakeInstallation {
  id: number;
  account: string;
  repos: string[];
  /** Logins with access to the installation (GET /user/installations lists it for them). */
  users: string[];
}

export interface LoggedRequest {
  method: string;
  /** The path without the API prefix, and its query. */
  path: string;
  auth: "jwt" | "token" | "basic" | "none";
  status: number;
}

export class FakeState {
  readonly installations = new Map<number, FakeInstallation>();
  readonly repos = new Map<string, FakeRepo>();
  readonly tokens = new Map<string, { installationId: number; expiresAtMs: number }>();
  /** OAuth codes the installation page handed out (single use, ten minutes), and the user each is for. */
  readonly codes = new Map<string, { login: string; expiresAtMs: number }>();
  /** User-to-server tokens `ghu_…` the code exchange minted, and whose they are. */
  readonly userTokens = new Map<string, { login: string; expiresAtMs: number }>();
  readonly log: LoggedRequest[] = [];
  /** Added to the real clock: tests move time forward (token expiry) without waiting. */
  clockOffsetMs = 0;
  tokenTtlMs = 60 * 60 * 1000;
  nextId = 1000;
  rate = { limit: 5000, remaining: 5000, resetMs: 0 };
  /** The next N API calls answer a secondary limit: 403 with `retry-after` (seconds), or only the message. */
  secondary = { count: 0, retryAfterS: 1 as number | null };
  /** The next N API calls answer this 5xx status. */
  failing = { count: 0, status: 502 };
  /** The next N API calls get no answer for this long (a client's timeout fires first). */
  stalling = { count: 0, ms: 0 };
  /**
   * Where the installation page sends the browser back (the App's Setup URL), the installation it gives, and who
   * is signed in on the code host (null: the installation's first user, as when its admin installs it). With
   * `code` the page adds an OAuth code, as GitHub does when the App requests user authorization during
   * installation; without it, none.
   */
  setup = { url: "", installationId: 0, login: null as string | null, code: true };

  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  /** The login a user-to-server token acts for, while it is good. */
  userOf(token: string): string | undefined {
    const held = this.userTokens.get(token);
    return held && held.expiresAtMs > this.now() ? held.login : undefined;
  }

  reposOf(token: string): FakeInstallation | undefined {
    const held = this.tokens.get(token);
    if (!held || held.expiresAtMs <= this.now()) return undefined;
    return this.installations.get(held.installationId);
  }
}

// The real code host's and tracker's settings (`baton serve --codehost-*`, `--tracker-*`): the App's id, slug and
// private key, the OAuth application's client id and secret, the webhook signing secrets, the platforms' URLs,
// and what makes an issue the agent's (a label, or assignment to the agent's account). Secrets come from files
// named by flags, never from the seed, and are never logged: `describeIntegrations` says what is configured
// without a value. Without the App (or OAuth application) the local code host (tracker) serves, as in the demo;
// a webhook secret alone lets the receiver take signed events that drive the local adapters.
import { createPrivateKey } from "node:crypto";
import { readFile } from "node:fs/promises";
import { UsageError } from "../../../errors.js";

export const CODEHOST_DEFAULTS = {
  apiUrl: "https://api.github.com",
  webUrl: "https://github.com",
  agentLabel: "baton",
} as const;

export const TRACKER_DEFAULTS = {
  apiUrl: "https://api.linear.app",
  webUrl: "https://linear.app",
  agentLabel: "baton",
} as const;

export interface CodehostAppSettings {
  appId: string;
  /** The App's URL name: its installation page is `<webUrl>/apps/<slug>/installations/new`. */
  appSlug: string;
  /** PEM (PKCS#1 or PKCS#8) RSA key the App signs its JWTs (RS256) with. */
  privateKeyPem: string;
  /** REST API base, e.g. https://api.github.com or https://ghe.example/api/v3. */
  apiUrl: string;
  /** Web base: installation pages, and the host agents clone from and push to. */
  webUrl: string;
  /**
   * The App's OAuth client id and secret: the install callback trades the `code` GitHub sends (the App requests
   * user authorization during installation) for the installer's own token, to check the installation is theirs.
   */
  clientId: string;
  clientSecret: string;
}

export interface CodehostSettings {
  /** Absent: the local code host (bare repositories under the work folder). */
  app: CodehostAppSettings | undefined;
  /** `X-Hub-Signature-256` key; absent: `POST /webhooks/codehost` answers 404. */
  webhookSecret: string | undefined;
  /** An issue given this label is the agent's. */
  agentLabel: string;
  /** An issue assigned to this login is the agent's (a machine user); null: by label only. */
  agentLogin: string | null;
}

export interface TrackerOAuthSettings {
  clientId: string;
  clientSecret: string;
  /** API base: GraphQL at `<apiUrl>/graphql`, tokens at `<apiUrl>/oauth/token`. */
  apiUrl: string;
  /** Web base: the authorization page at `<webUrl>/oauth/authorize`. */
  webUrl: string;
}

export interface TrackerSettings {
  /** Absent: the local tracker (issues in the store). */
  oauth: TrackerOAuthSettings | undefined;
  /** `Linear-Signature` key; absent: `POST /webhooks/tracker` answers 404. */
  webhookSecret: string | undefined;
  /** An issue given this label is the agent's (assignment to the app's user is the other way). */
  agentLabel: string;
}

export interface IntegrationSettings {
  codehost: CodehostSettings;
  tracker: TrackerSettings;
}

/** Neither platform configured: the local adapters, no webhook receivers. */
export const LOCAL_INTEGRATIONS: IntegrationSettings = {
  codehost: {
    app: undefined,
    webhookSecret: undefined,
    agentLabel: CODEHOST_DEFAULTS.agentLabel,
    agentLogin: null,
  },
  tracker: { oauth: undefined, webhookSecret: undefined, agentLabel: TRACKER_DEFAULTS.agentLabel },
};

/** The flags as parsed (serve-options.ts); the files are read here. */
export interface IntegrationFlags {
  codehostAppId?: string | undefined;
  codehostAppSlug?: string | undefined;
  codehostPrivateKeyFile?: string | undefined;
  codehostClientId?: string | undefined;
  codehostClientSecretFile?: string | undefined;
  codehostWebhookSecretFile?: string | undefined;
  codehostApiUrl?: string | undefined;
  codehostWebUrl?: string | undefined;
  codehostAgentLabel?: string | undefined;
  codehostAgentLogin?: string | undefined;
  trackerClientId?: string | undefined;
  trackerClientSecretFile?: string | undefined;
  trackerWebhookSecretFile?: string | undefined;
  trackerApiUrl?: string | undefined;
  trackerWebUrl?: string | undefined;
  trackerAgentLabel?: string | undefined;
}

/** Which flags must come together: the App's five, the OAuth application's two. */
export function checkIntegrationFlags(flags: IntegrationFlags): void {
  const app = [
    flags.codehostAppId,
    flags.codehostAppSlug,
    flags.codehostPrivateKeyFile,
    flags.codehostClientId,
    flags.codehostClientSecretFile,
  ];
  if (app.some((v) => v !== undefined) && app.some((v) => v === undefined))
    throw new UsageError(
      "--codehost-app-id, --codehost-app-slug, --codehost-private-key-file, --codehost-client-id and --codehost-client-secret-file go together: give all five (the App's settings page shows the id, slug and client id; the private key is the .pem it generated; the client secret is one generated there). The install callback needs the client id and secret to check that the installation is the installer's own",
      { path: "--codehost-app-id" },
    );
  if ((flags.trackerClientId === undefined) !== (flags.trackerClientSecretFile === undefined))
    throw new UsageError(
      "--tracker-client-id and --tracker-client-secret-file go together: give both (the tracker's OAuth application page shows them)",
      { path: "--tracker-client-id" },
    );
}

/** Reads the secret files; a file that cannot be read, is empty or holds no usable key is named, never shown. */
export async function loadIntegrationSettings(flags: IntegrationFlags): Promise<IntegrationSettings> {
  checkIntegrationFlags(flags);
  const privateKeyPem = flags.codehostPrivateKeyFile
    ? await readSecretFile(flags.codehostPrivateKeyFile, "--codehost-private-key-file")
    : undefined;
  if (privateKeyPem !== undefined) checkPrivateKey(privateKeyPem);
  const appClientSecret = flags.codehostClientSecretFile
    ? await readSecretFile(flags.codehostClientSecretFile, "--codehost-client-secret-file")
    : undefined;
  const clientSecret = flags.trackerClientSecretFile
    ? await readSecretFile(flags.trackerClientSecretFile, "--tracker-client-secret-file")
    : undefined;
  return {
    codehost: {
      app:
        flags.codehostAppId &&
        flags.codehostAppSlug &&
        privateKeyPem &&
        flags.codehostClientId &&
        appClientSecret
          ? {
              appId: flags.codehostAppId,
              appSlug: flags.codehostAppSlug,
              privateKeyPem,
              apiUrl: trimSlash(flags.codehostApiUrl ?? CODEHOST_DEFAULTS.apiUrl),
              webUrl: trimSlash(flags.codehostWebUrl ?? CODEHOST_DEFAULTS.webUrl),
              clientId: flags.codehostClientId,
              clientSecret: appClientSecret,
            }
          : undefined,
      webhookSecret: flags.codehostWebhookSecretFile
        ? await readSecretFile(flags.codehostWebhookSecretFile, "--codehost-webhook-secret-file")
        : undefined,
      agentLabel: flags.codehostAgentLabel ?? CODEHOST_DEFAULTS.agentLabel,
      agentLogin: flags.codehostAgentLogin ?? null,
    },
    tracker: {
      oauth:
        flags.trackerClientId && clientSecret
          ? {
              clientId: flags.trackerClientId,
              clientSecret,
              apiUrl: trimSlash(flags.trackerApiUrl ?? TRACKER_DEFAULTS.apiUrl),
              webUrl: trimSlash(flags.trackerWebUrl ?? TRACKER_DEFAULTS.webUrl),
            }
          : undefined,
      webhookSecret: flags.trackerWebhookSecretFile
        ? await readSecretFile(flags.trackerWebhookSecretFile, "--tracker-webhook-secret-file")
        : undefined,
      agentLabel: flags.trackerAgentLabel ?? TRACKER_DEFAULTS.agentLabel,
    },
  };
}

/** What is configured, for the start-up log line: names and URLs, never a secret. */
export function describeIntegrations(settings: IntegrationSettings): Record<string, string> {
  return {
    codehost: settings.codehost.app
      ? `app ${settings.codehost.app.appId} at ${settings.codehost.app.apiUrl}`
      : "local",
    codehostWebhooks: settings.codehost.webhookSecret ? "on" : "off",
    tracker: settings.tracker.oauth ? `oauth app at ${settings.tracker.oauth.apiUrl}` : "local",
    trackerWebhooks: settings.tracker.webhookSecret ? "on" : "off",
  };
}

async function readSecretFile(path: string, flag: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new UsageError(`${flag} ${path} cannot be read (${code}); check the path and its permissions`, {
      path: flag,
    });
  }
  const value = text.trim();
  if (value === "") throw new UsageError(`${flag} ${path} is empty; put the secret in it`, { path: flag });
  return value;
}

function checkPrivateKey(pem: string): void {
  try {
    const key = createPrivateKey(pem);
    if (key.asymmetricKeyType !== "rsa") throw new Error("not RSA");
  } catch {
    throw new UsageError(
      "--codehost-private-key-file holds no RSA private key in PEM; download a new private key from the App's settings page",
      { path: "--codehost-private-key-file" },
    );
  }
}

const trimSlash = (url: string) => url.replace(/\/+$/, "");

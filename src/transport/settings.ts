// Reads and checks the sandbox's transport settings; a missing or malformed one is a ConfigError naming it.
import { readTransportSettings } from "../config/sandbox.js";
import { ConfigError } from "../errors.js";

export interface OpsSettings {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:4100`. */
  baseUrl: string;
  turnToken: string;
  sandboxLease: string;
}

const FIX = "The orchestrator sets it when it provisions the sandbox; export it and run the command again.";

export function requireOpsSettings(env: NodeJS.ProcessEnv): OpsSettings {
  const raw = readTransportSettings(env);
  if (raw.opsUrl === undefined) throw new ConfigError(`BATON_OPS_URL is not set. ${FIX}`);
  if (raw.turnToken === undefined) throw new ConfigError(`BATON_TURN_TOKEN is not set. ${FIX}`);
  if (raw.sandboxLease === undefined) throw new ConfigError(`BATON_SANDBOX_LEASE is not set. ${FIX}`);
  return { baseUrl: parseBaseUrl(raw.opsUrl), turnToken: raw.turnToken, sandboxLease: raw.sandboxLease };
}

function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch (error) {
    // The value itself is not echoed: it may carry credentials in its user-info part.
    throw new ConfigError("BATON_OPS_URL is not a URL; set it to the service's http(s) address.", {
      cause: error,
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError("BATON_OPS_URL must start with http:// or https://.");
  }
  if (url.username !== "" || url.password !== "") {
    throw new ConfigError(
      "BATON_OPS_URL must not contain a user name or password; the turn token authenticates.",
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** The part of the base URL that is safe to print: scheme, host and port. */
export function describeBaseUrl(baseUrl: string): string {
  return new URL(baseUrl).origin;
}

// Which service the client commands talk to (DESIGN "--api-url"): `--api-url` (login only) must be https; the
// one environment override, BATON_API_URL, may also name a plain-http service on loopback, and wins over the
// saved and default address for every client command. Pure: the caller passes the environment in.
import { ConfigError, UsageError } from "../errors.js";

/** A placeholder: a self-hosted service is named with `baton login --api-url`. */
export const DEFAULT_API_URL = "https://api.baton.example";
export const API_URL_ENV = "BATON_API_URL";

const LOOPBACK_NAMES = new Set(["localhost", "[::1]"]);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

type Checked = { ok: true; url: string } | { ok: false; problem: string };

/** Parses an address; `allowLoopbackHttp` lets http:// through for loopback hosts only. */
export function checkApiUrl(value: string, allowLoopbackHttp: boolean): Checked {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return { ok: false, problem: `${JSON.stringify(value)} is not an address` };
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, problem: "the address must not carry a user name or password" };
  }
  if (url.search !== "" || url.hash !== "") {
    return { ok: false, problem: "the address must not carry a query or fragment" };
  }
  const loopbackHttp = url.protocol === "http:" && isLoopbackHost(url.hostname);
  if (url.protocol !== "https:" && !(allowLoopbackHttp && loopbackHttp)) {
    return {
      ok: false,
      problem: allowLoopbackHttp
        ? `${url.protocol}// is allowed only for a loopback service (127.0.0.1, ::1, localhost); use https://`
        : `the address must start with https:// (got ${url.protocol}//)`,
    };
  }
  return { ok: true, url: `${url.origin}${url.pathname.replace(/\/+$/, "")}` };
}

/** `--api-url`: https only (reference); names the override for a local plain-http service. */
export function parseApiUrlFlag(value: string): string {
  const checked = checkApiUrl(value, false);
  if (checked.ok) return checked.url;
  throw new UsageError(
    `--api-url: ${checked.problem}. For a local service on plain-http loopback, set ${API_URL_ENV}=http://127.0.0.1:<port> instead`,
  );
}

/**
 * The address to use: `--api-url` when given (login), else BATON_API_URL, else the saved one, else the default.
 * A saved address passes the same check as the override (login may have saved a loopback one).
 */
export function resolveApiUrl(input: { flag?: string; env: NodeJS.ProcessEnv; saved?: string }): string {
  if (input.flag !== undefined) return parseApiUrlFlag(input.flag);
  const override = input.env[API_URL_ENV];
  if (override !== undefined && override !== "") {
    const checked = checkApiUrl(override, true);
    if (!checked.ok) throw new ConfigError(`${API_URL_ENV}: ${checked.problem}`);
    return checked.url;
  }
  if (input.saved !== undefined) {
    const checked = checkApiUrl(input.saved, true);
    if (!checked.ok) {
      throw new ConfigError(`the saved API address is not usable (${checked.problem}); run \`baton login\``);
    }
    return checked.url;
  }
  return DEFAULT_API_URL;
}

// A secret's approved destinations (DESIGN "Approved destinations of a secret"): a host, exact or `*.` for
// subdomains, optionally with scheme, port and path prefix (`https://api.acme.test:8443/v2/`). A bare host means
// https, port 443, any path. Parsing and matching are pure and shared by `baton serve` (which stores them) and
// `baton proxy` (which swaps placeholders only where one matches).

export interface ApprovedDestination {
  scheme: "https" | "http";
  /** Lowercase, no trailing dot; may start with `*.`. */
  host: string;
  port: number;
  /** `/` for any path. */
  pathPrefix: string;
}

const HOST = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const ENTRY = /^(?:(https?):\/\/)?([^/:]+)(?::([0-9]{1,5}))?(\/[^?#\s]*)?$/;

export const DESTINATION_RULE =
  "must be a lowercase host (optionally *.), optionally with http(s)://, :port and a /path prefix";

export function parseApprovedDestination(text: string): ApprovedDestination | null {
  const match = ENTRY.exec(text);
  if (!match) return null;
  const [, scheme = "https", rawHost = "", rawPort, path] = match;
  const host = rawHost.replace(/\.$/, "");
  if (!HOST.test(host)) return null;
  const port = rawPort === undefined ? (scheme === "http" ? 80 : 443) : Number(rawPort);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return null;
  if (path !== undefined && hasDotSegment(path)) return null;
  return { scheme: scheme as "https" | "http", host, port, pathPrefix: path ?? "/" };
}

/** The host part of an entry (what capability-request authorisation compares). */
export function destinationHost(text: string): string | null {
  return parseApprovedDestination(text)?.host ?? null;
}

export function hostMatches(pattern: string, host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  if (pattern.startsWith("*.")) return name.endsWith(pattern.slice(1)) && name.length > pattern.length - 1;
  return name === pattern;
}

/** `.` or `..` segments, plain or percent-encoded: a path that could climb out of a prefix never matches one. */
function hasDotSegment(path: string): boolean {
  return path
    .split("/")
    .some(
      (segment) => /^(?:\.|%2e){1,2}$/i.test(segment) || segment.includes("\\") || /%2f|%5c/i.test(segment),
    );
}

/** Whether `path` (origin-form, query allowed) is under `prefix`. `/v2` covers `/v2` and `/v2/...`, not `/v2x`. */
export function pathUnderPrefix(prefix: string, path: string): boolean {
  if (prefix === "/") return true;
  const bare = path.split(/[?#]/, 1)[0]!;
  if (hasDotSegment(bare)) return false;
  if (prefix.endsWith("/")) return bare.startsWith(prefix);
  return bare === prefix || bare.startsWith(`${prefix}/`);
}

export interface RequestOrigin {
  scheme: "https" | "http";
  host: string;
  port: number;
  path: string;
}

export function destinationMatches(destination: ApprovedDestination, request: RequestOrigin): boolean {
  return (
    destination.scheme === request.scheme &&
    destination.port === request.port &&
    hostMatches(destination.host, request.host) &&
    pathUnderPrefix(destination.pathPrefix, request.path)
  );
}

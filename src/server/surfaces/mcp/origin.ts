// The Origin rule (reference section 4 "MCP endpoint"): a request may omit Origin; a present one must be a
// well-formed HTTPS origin or an HTTP loopback origin (127.0.0.1, localhost, [::1], optional port). Anything
// else, `null` included, is refused before authentication. Pure: the header's value in, a verdict out.

export type OriginVerdict =
  | { allowed: true; kind: "absent" | "https" | "loopback" }
  | { allowed: false; reason: string };

const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const HOST = `${LABEL}(?:\\.${LABEL})*`;
const IPV6 = "\\[[0-9a-f:.]+\\]";
const PORT = "(?::(\\d{1,5}))?";
const HTTPS_ORIGIN = new RegExp(`^https://(${HOST}|${IPV6})${PORT}$`, "i");
const LOOPBACK_ORIGIN = new RegExp(`^http://(127\\.0\\.0\\.1|localhost|\\[::1\\])${PORT}$`, "i");
const MAX_PORT = 65_535;

const REFUSED =
  "Origin must be an https origin (https://host[:port]) or an http loopback origin (http://127.0.0.1, http://localhost or http://[::1], optional port); omit it outside a browser";

export function classifyOrigin(value: string | null | undefined): OriginVerdict {
  if (value === null || value === undefined) return { allowed: true, kind: "absent" };
  const loopback = LOOPBACK_ORIGIN.exec(value);
  if (loopback && portIsValid(loopback[2])) return { allowed: true, kind: "loopback" };
  const https = HTTPS_ORIGIN.exec(value);
  if (https && portIsValid(https[2]) && parses(value)) return { allowed: true, kind: "https" };
  return { allowed: false, reason: REFUSED };
}

function portIsValid(port: string | undefined): boolean {
  return port === undefined || Number(port) <= MAX_PORT;
}

/** The WHATWG parser has the last word on bracketed IPv6 literals the pattern only shapes. */
function parses(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

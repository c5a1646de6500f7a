// The Origin rule (reference section 4 "MCP endpoint"): "if an Origin header is present it must be a well-formed
// HTTPS origin or an HTTP loopback origin (127.0.0.1, localhost, [::1], optional port). Any other value,
// including null, gets HTTP 403". classifyOrigin is pure; the 403 itself is tested through the handler.
import { describe, expect, it } from "vitest";
import { classifyOrigin } from "../../../../../src/server/surfaces/mcp/origin.js";

const ALLOWED: [string | undefined, "absent" | "https" | "loopback"][] = [
  [undefined, "absent"],
  ["https://claude.ai", "https"],
  ["https://chat.example.com:8443", "https"],
  ["https://EXAMPLE.com", "https"],
  ["https://[2001:db8::1]", "https"],
  ["https://localhost", "https"],
  ["http://127.0.0.1", "loopback"],
  ["http://127.0.0.1:6274", "loopback"],
  ["http://localhost", "loopback"],
  ["http://localhost:3000", "loopback"],
  ["http://[::1]", "loopback"],
  ["http://[::1]:8080", "loopback"],
];

const REFUSED: [string, string][] = [
  ["null", "the opaque origin of a sandboxed frame or file"],
  ["", "empty"],
  ["http://example.com", "plain http off loopback"],
  ["http://127.0.0.2", "another loopback address than 127.0.0.1"],
  ["http://127.1", "a shortened loopback address"],
  ["http://localhost.evil.test", "a name that starts with localhost"],
  ["http://0.0.0.0:8080", "the unspecified address"],
  ["https://example.com/", "a trailing slash (a URL, not an origin)"],
  ["https://example.com/path", "a path"],
  ["https://example.com?x=1", "a query"],
  ["https://user@example.com", "credentials"],
  ["https://example.com:99999", "a port over 65535"],
  ["https://example.com:", "an empty port"],
  ["https://", "no host"],
  ["https://exa mple.com", "a space"],
  ["https://-bad.example", "a label starting with a hyphen"],
  ["https://a..b", "an empty label"],
  ["ftp://example.com", "another scheme"],
  ["example.com", "no scheme"],
  ["https://example.com, https://other.test", "two origins"],
  ["chrome-extension://abcdef", "a browser extension"],
];

describe("classifyOrigin", () => {
  it.each(ALLOWED)("allows %s (%s)", (value, kind) => {
    expect(classifyOrigin(value)).toEqual({ allowed: true, kind });
  });

  it.each(REFUSED)("refuses %j: %s", (value) => {
    const verdict = classifyOrigin(value);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toMatch(/https origin .* http loopback origin/);
  });
});

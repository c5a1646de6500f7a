import { describe, expect, it } from "vitest";
import {
  MAX_READINESS_CHECKS,
  parseReadinessFlags,
  type ReadinessFlags,
} from "../../../src/envtest/readiness-flags.js";
import { UsageError } from "../../../src/errors.js";
import { ReadinessSchema } from "../../../src/transport/wire.js";

const none: ReadinessFlags = {
  readyUrl: [],
  readyTcp: [],
  readyCommand: [],
  readyTimeout: 30,
  stepTimeout: 600,
};

function refusal(flags: Partial<ReadinessFlags>): UsageError {
  try {
    parseReadinessFlags({ ...none, ...flags });
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error("the flags were accepted");
}

describe("baton env test's readiness flags", () => {
  it("give no checks when none is given (readiness stays unknown)", () => {
    expect(parseReadinessFlags(none)).toEqual([]);
  });

  it("give one runner check per flag, in order, each with --ready-timeout as its deadline", () => {
    const checks = parseReadinessFlags({
      ...none,
      readyUrl: ["http://127.0.0.1:3000/health", "https://localhost/"],
      readyTcp: ["127.0.0.1:5432", "[::1]:6379", "db:1"],
      readyCommand: ["pg_isready -h 127.0.0.1"],
      readyTimeout: 2.5,
    });
    expect(checks).toEqual([
      { kind: "http", url: "http://127.0.0.1:3000/health", deadlineSeconds: 2.5 },
      { kind: "http", url: "https://localhost/", deadlineSeconds: 2.5 },
      { kind: "tcp", host: "127.0.0.1", port: 5432, deadlineSeconds: 2.5 },
      { kind: "tcp", host: "::1", port: 6379, deadlineSeconds: 2.5 },
      { kind: "tcp", host: "db", port: 1, deadlineSeconds: 2.5 },
      { kind: "command", command: "pg_isready -h 127.0.0.1", deadlineSeconds: 2.5 },
    ]);
    // What the seed and the handoff accept.
    expect(ReadinessSchema.parse({ checks })).toEqual({ checks });
  });

  it.each([
    [{ readyUrl: ["127.0.0.1:3000/health"] }, "--ready-url must be an http:// or https:// URL with a host"],
    [{ readyUrl: ["ftp://127.0.0.1/"] }, "--ready-url must be an http:// or https:// URL with a host"],
    [{ readyUrl: ["file:///etc/passwd"] }, "--ready-url must be an http:// or https:// URL with a host"],
    [
      { readyUrl: ["http://127.0.0.1/", "gopher://x/"] },
      "--ready-url (#2 of 2) must be an http:// or https:// URL with a host",
    ],
    [{ readyTcp: ["127.0.0.1"] }, "--ready-tcp must be host:port"],
    [{ readyTcp: ["127.0.0.1:0"] }, "--ready-tcp must be host:port"],
    [{ readyTcp: ["127.0.0.1:65536"] }, "--ready-tcp must have a port 1 to 65535"],
    [{ readyTcp: ["a b:80"] }, "--ready-tcp must be host:port"],
    [{ readyCommand: ["  "] }, "--ready-command must be a command for bash -c"],
    [{ readyCommand: ["x".repeat(4097)] }, "--ready-command must be at most 4096 characters"],
    [
      { readyUrl: ["http://127.0.0.1/"], readyTimeout: 600 },
      "--ready-timeout (600 s) must be less than --timeout (600 s)",
    ],
    [
      { readyCommand: Array(MAX_READINESS_CHECKS + 1).fill("true") },
      `give ${MAX_READINESS_CHECKS + 1} checks; at most ${MAX_READINESS_CHECKS}`,
    ],
  ] as [Partial<ReadinessFlags>, string][])("refuse %j: %s", (flags, message) => {
    const error = refusal(flags);
    expect(error.message).toContain(message);
    expect(error.code).toBe("usage");
  });

  it("refuse a URL with a password without quoting it", () => {
    const error = refusal({ readyUrl: ["http://admin:canary-s3cret@127.0.0.1/health"] });
    expect(error.message).toBe(
      "--ready-url must not carry a user name or password (the URL is written to the handoff and the evidence)",
    );
    expect(error.message).not.toContain("canary-s3cret");
  });

  it("let --ready-timeout be anything when there is no check to give it to", () => {
    expect(parseReadinessFlags({ ...none, readyTimeout: 900 })).toEqual([]);
  });
});

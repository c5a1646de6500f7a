// What an operator sees of a PostgreSQL URL and of pg's failures: never the password, always what to fix.
import { describe, expect, it } from "vitest";
import { redactDatabaseUrl } from "../../../../src/server/store/database-url.js";
import { explainPostgresError, parseDatabaseUrl } from "../../../../src/server/store/postgres-errors.js";

const CANARY = "canary-pg-password-7c1e";

describe("redactDatabaseUrl", () => {
  it.each([
    [
      "the password",
      `postgres://baton:${CANARY}@db.internal:5432/baton`,
      "postgres://baton:***@db.internal:5432/baton",
    ],
    ["no password: unchanged", "postgres://baton@db/baton", "postgres://baton@db/baton"],
    [
      "a password in the query",
      `postgresql://db/baton?password=${CANARY}`,
      "postgresql://db/baton?password=***",
    ],
    ["a URL that does not parse", `not a url ${CANARY}`, "(a database URL that does not parse)"],
  ])("replaces %s", (_rule, url, expected) => {
    expect(redactDatabaseUrl(url)).toBe(expected);
    expect(redactDatabaseUrl(url)).not.toContain(CANARY);
  });
});

describe("parseDatabaseUrl", () => {
  it.each(["mysql://u:p@h/db", "postgres:///socket-only", "127.0.0.1:5432"])(
    "refuses %s as a usage error naming the expected shape",
    (url) => {
      expect(() => parseDatabaseUrl(url)).toThrow(
        /--database-url must look like postgres:\/\/user:password@host/,
      );
    },
  );

  it("keeps the password out of the refusal", () => {
    expect(() => parseDatabaseUrl(`mysql://u:${CANARY}@h/db`)).toThrow(/mysql:\/\/u:\*\*\*@h\/db/);
  });
});

describe("explainPostgresError", () => {
  const url = `postgres://baton:${CANARY}@127.0.0.1:5432/baton`;
  it.each([
    [
      "cannot connect",
      { code: "ECONNREFUSED", message: "connect ECONNREFUSED" },
      /cannot connect to PostgreSQL/,
    ],
    [
      "a connection timeout",
      { message: "Connection terminated due to connection timeout" },
      /cannot connect/,
    ],
    [
      "authentication, naming where the password lives",
      { code: "28P01", message: "password authentication failed" },
      /refused the sign-in .*PGPASSWORD/,
    ],
    ["no such database", { code: "3D000", message: 'database "x" does not exist' }, /createdb/],
    [
      "permission",
      { code: "42501", message: "permission denied for schema public" },
      /needs CREATE and USAGE/,
    ],
  ])("%s says what to fix, with the URL redacted", (_kind, error, text) => {
    const explained = explainPostgresError(Object.assign(new Error(error.message), error), url);
    expect(explained?.message).toMatch(text);
    expect(explained?.message).toContain("postgres://baton:***@127.0.0.1:5432/baton");
    expect(explained?.message).not.toContain(CANARY);
  });

  it("leaves any other error to the caller", () => {
    expect(
      explainPostgresError(Object.assign(new Error("division by zero"), { code: "22012" }), url),
    ).toBeUndefined();
  });
});

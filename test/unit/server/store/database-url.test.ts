// A database URL shown to an operator never carries its password, wherever the URL puts it.
import { describe, expect, it } from "vitest";
import { redactDatabaseUrl, withoutUrlSecrets } from "../../../../src/server/store/database-url.js";

const CANARY = "canary-pw-7f3a9c";

describe("redactDatabaseUrl", () => {
  it.each([
    [
      "a password in the user part",
      `postgres://baton:${CANARY}@db.internal:5432/baton`,
      "postgres://baton:***@db.internal:5432/baton",
    ],
    ["a percent-encoded password", `postgresql://u:${CANARY}%40x@h/db`, "postgresql://u:***@h/db"],
    [
      "a password= parameter",
      `postgres://u@h/db?sslmode=require&password=${CANARY}`,
      "postgres://u@h/db?sslmode=require&password=***",
    ],
    ["no password: unchanged", "postgres://u@h:5433/db", "postgres://u@h:5433/db"],
    [
      "a URL that does not parse: nothing of it",
      `host=h password=${CANARY}`,
      "(a database URL that does not parse)",
    ],
  ])("hides %s", (_case, url, shown) => {
    expect(redactDatabaseUrl(url)).toBe(shown);
    expect(redactDatabaseUrl(url)).not.toContain(CANARY);
  });
});

describe("withoutUrlSecrets", () => {
  it.each([
    [
      "the whole URL quoted in a message",
      `postgres://u:${CANARY}@h/db`,
      `bad url postgres://u:${CANARY}@h/db`,
      "bad url postgres://u:***@h/db",
    ],
    [
      "the password on its own",
      `postgres://u:${CANARY}@h/db`,
      `auth failed for ${CANARY}`,
      "auth failed for ***",
    ],
    ["a password= parameter's value", `postgres://u@h/db?password=${CANARY}`, `saw ${CANARY}`, "saw ***"],
    [
      "a message without secrets: unchanged",
      "postgres://u@h/db",
      "connect ECONNREFUSED 127.0.0.1:1",
      "connect ECONNREFUSED 127.0.0.1:1",
    ],
  ])("removes %s", (_case, url, text, cleaned) => {
    expect(withoutUrlSecrets(text, url)).toBe(cleaned);
  });
});

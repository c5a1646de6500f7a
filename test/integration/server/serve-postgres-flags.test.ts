// `baton serve --database-url`'s refusals before it listens, through the real binary: each names the flag to fix,
// exits 1, and never prints the URL's password (a canary planted in it).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBaton } from "../../helpers/cli.js";

const CANARY_PASSWORD = "canary-pg-pass-4c1d9e7a-never-print";
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "serve-pg-flags-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

// Port 1 on loopback: nothing listens there, so the connection is refused at once (no server is faked).
const unreachable = `postgres://baton:${CANARY_PASSWORD}@127.0.0.1:1/baton_test`;

const CASES = [
  {
    rule: "--db and --database-url together: the message names both",
    args: () => [
      "--db",
      join(dir, "s.sqlite"),
      "--database-url",
      unreachable,
      "--secret-key-file",
      join(dir, "k"),
    ],
    says: /--db and --database-url each pick the store: give one/,
  },
  {
    rule: "--database-url without --secret-key-file: the message names the missing flag",
    args: () => ["--database-url", unreachable],
    says: /--database-url needs --secret-key-file/,
  },
  {
    rule: "a URL that is not postgres://: the message shows the expected shape",
    args: () => [
      "--database-url",
      `mysql://baton:${CANARY_PASSWORD}@127.0.0.1/x`,
      "--secret-key-file",
      join(dir, "k"),
    ],
    says: /--database-url must look like postgres:\/\/user:password@host:5432\/database/,
  },
  {
    rule: "PostgreSQL unreachable: the message names the server, with the password hidden",
    args: () => ["--database-url", unreachable, "--secret-key-file", join(dir, "k")],
    says: /cannot reach PostgreSQL at postgres:\/\/baton:\*\*\*@127\.0\.0\.1:1\/baton_test: .*check --database-url/,
  },
  // The real PostgreSQL of scripts/setup-machine.sh (127.0.0.1:5432, role baton), given a wrong password: in the
  // URL, then the way the reference passes it, in PGPASSWORD.
  {
    rule: "a wrong password in the URL: the message says the sign-in was refused and names PGPASSWORD",
    args: () => [
      "--database-url",
      `postgres://baton:${CANARY_PASSWORD}@127.0.0.1:5432/baton_test`,
      "--secret-key-file",
      join(dir, "k"),
    ],
    says: /PostgreSQL at postgres:\/\/baton:\*\*\*@127\.0\.0\.1:5432\/baton_test refused the sign-in .*password \(PGPASSWORD in the environment, or the URL\)/,
  },
  {
    rule: "a wrong PGPASSWORD: the message says the sign-in was refused and names PGPASSWORD",
    args: () => [
      "--database-url",
      "postgres://baton@127.0.0.1:5432/baton_test",
      "--secret-key-file",
      join(dir, "k"),
    ],
    env: { PGPASSWORD: CANARY_PASSWORD },
    says: /refused the sign-in \(password authentication failed for user "baton"\): .*PGPASSWORD/,
  },
];

describe("baton serve --database-url refuses a bad start", () => {
  it.each(CASES)("$rule (exit 1)", async (testCase) => {
    const { args, says } = testCase;
    const env = "env" in testCase ? testCase.env : {};
    const run = await runBaton(["serve", "--port", "0", "--work-dir", join(dir, "work"), ...args()], {
      env: { HOME: dir, XDG_DATA_HOME: join(dir, "data"), ...env },
      timeout: 30_000,
    });
    expect(run.exitCode, run.stderr).toBe(1);
    expect(run.stderr).toMatch(says);
    expect(`${run.stdout}${run.stderr}`).not.toContain(CANARY_PASSWORD);
  });
});

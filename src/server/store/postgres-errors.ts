// What an operator is told about a PostgreSQL URL given to migrate-store and about pg's failures: the URL's
// shape checked before any connection, and pg's errors turned into what to fix (cannot connect,
// authentication, permission, no such database), with the password never in the text.
import { BatonError } from "../../errors.js";
import { redactDatabaseUrl, withoutUrlSecrets } from "./database-url.js";

/** Checks the URL's shape before any connection: postgres:// or postgresql://, with a host. */
export function parseDatabaseUrl(url: string): URL {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !/^postgres(ql)?:$/.test(parsed.protocol) || !parsed.hostname) {
    throw new BatonError(
      "usage",
      `--database-url must look like postgres://user:password@host:5432/database (got ${redactDatabaseUrl(url)})`,
    );
  }
  return parsed;
}

/** pg's codes for a refused sign-in: a wrong password (28P01), or a role pg_hba.conf does not let in (28000). */
export const SIGN_IN_REFUSED = new Set(["28P01", "28000"]);

const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ECONNRESET",
]);

/**
 * A BatonError saying what to fix for an error pg raised while connecting or setting up, or undefined when it is
 * none of the kinds an operator can fix from here. Never quotes the password (pg's messages do not hold it).
 */
export function explainPostgresError(error: unknown, url: string): BatonError | undefined {
  const { code, message } = error as { code?: string; message?: string };
  const where = redactDatabaseUrl(url);
  const reason = withoutUrlSecrets(String(message ?? error), url);
  const fail = (text: string) => new BatonError("network", text, { cause: error, details: { code } });
  if ((code && UNREACHABLE.has(code)) || /timeout|terminated unexpectedly/i.test(reason)) {
    return fail(
      `cannot connect to PostgreSQL at ${where} (${reason}): check the host and port, and that the server runs and accepts TCP connections`,
    );
  }
  if (code && SIGN_IN_REFUSED.has(code)) {
    // The password is usually not in the URL (the reference puts it in PGPASSWORD): name both places.
    return fail(
      `PostgreSQL at ${where} refused the sign-in (${reason}): check the user in --database-url and its password (PGPASSWORD in the environment, or the URL), and pg_hba.conf`,
    );
  }
  if (code === "3D000")
    return fail(
      `PostgreSQL at ${where} has no such database (${reason}): create it first (createdb), or fix its name`,
    );
  if (code === "42501") {
    return fail(
      `PostgreSQL at ${where} denied a permission (${reason}): the role needs CREATE and USAGE on the schema and ownership of Baton's tables`,
    );
  }
  if (code === "3F000")
    return fail(`PostgreSQL at ${where} has no such schema (${reason}): create it first, or fix search_path`);
  return undefined;
}
